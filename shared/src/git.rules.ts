/*
 * What SAC accepts as a git ref or path from settings, and the allowed-signers list it verifies
 * release tags against. Nothing that starts with `-` reaches a git command line (it would be read
 * as an option, e.g. `--output=/path`).
 */

/**
 * A branch or ref name git itself accepts (`git check-ref-format`) and that cannot be read as an
 * option: no leading `-`, no whitespace or control characters, none of `~^:?*[\`, no `..` or `@{`,
 * no `/.` component, no trailing `.`, `/` or `.lock`.
 */
export function isSafeGitRef(ref: string): boolean {
  if (ref.length === 0 || ref.length > 256 || ref.startsWith('-') || ref.startsWith('/')) return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return false;
  return !ref.includes('..') && !ref.includes('@{') && !ref.includes('/.') && !ref.includes('//') && !ref.startsWith('.') && !/[./]$|\.lock$/.test(ref);
}

/** Key types OpenSSH signs with (`ssh-keygen -Y sign`). */
const SIGNING_KEY_TYPES = new Set([
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/** Most signer lines an allowed-signers list may hold. */
export const ALLOWED_SIGNERS_MAX_LINES = 100;

/**
 * Checks an OpenSSH `allowed_signers` text (ssh-keygen(1), ALLOWED SIGNERS): one signer per line,
 * `principals [options] key-type base64-key [comment]`; `#` comments and blank lines allowed.
 * Options are limited to `namespaces="git"`-style `name="value"` pairs and `cert-authority`.
 * Answers the first problem, or null when the text is fit to hand to `ssh-keygen`.
 */
export function allowedSignersProblem(text: string): string | null {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, '').trim());
  const signers = lines.filter((l) => l && !l.startsWith('#'));
  if (signers.length > ALLOWED_SIGNERS_MAX_LINES) return `at most ${ALLOWED_SIGNERS_MAX_LINES} signers`;
  for (const [i, line] of lines.entries()) {
    if (!line || line.startsWith('#')) continue;
    const words = line.split(/[ \t]+/);
    const typeAt = words.findIndex((w, at) => at > 0 && SIGNING_KEY_TYPES.has(w));
    const principals = words[0]!;
    const options = words.slice(1, typeAt);
    const key = words[typeAt + 1];
    const where = `line ${i + 1}`;
    if (typeAt < 0) return `${where}: no SSH public key type (such as ssh-ed25519) after the principals`;
    if (!/^[^\s"]{1,256}$/.test(principals)) return `${where}: the principals (such as release@example.com) come first`;
    if (!options.every((o) => /^(?:cert-authority|[a-z-]{1,32}="[^"\s]{1,256}")$/.test(o))) return `${where}: options must be cert-authority or name="value" (such as namespaces="git")`;
    if (!key || key.length > 2048 || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return `${where}: the public key after ${words[typeAt]} is not base64`;
  }
  return null;
}
