import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { simpleGit, type SimpleGit } from 'simple-git';
import { isSafeGitRef, type SettingsValue } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';
import { buildBundle } from './agent-bundles.js';
import { newestVersion, versionFromFile, versionFromTag } from './agent-version.rules.js';

/** Where a product's latest version is read: its newest release tag, or a version file on the branch. */
export interface GitRepoSource {
  product: string;
  url: string;
  branch: string | null;
  /** https access token; sent as an HTTP header for each command, never written into the mirror. */
  token: string | null;
  version_from: 'tag' | 'file';
  /** Path of the version file in the repository (`version_from: file`); defaults per product. */
  version_file: string | null;
}

export interface LatestVersion {
  version: string;
  commit: string;
}

/** The version file each real product keeps, when the settings name none. */
const DEFAULT_VERSION_FILES: Record<string, string> = {
  'rdp-login-monitor': 'version.txt',
  'ssh-monitor': 'ssh-monitor',
};

const GIT_TIMEOUT_MS = 120_000;

/**
 * Remotes git may be pointed at: http(s), ssh, git, file URLs, scp-like `user@host:path` and
 * absolute local paths. Anything else (`ext::`, a leading `-`) could run commands on this host.
 */
export function isAllowedRemote(url: string): boolean {
  if (url.startsWith('-') || /[\0\r\n]/.test(url)) return false;
  if (/^(https?|ssh|git|file):\/\/[^\s]+$/i.test(url)) return true;
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s:][^\s]*$/.test(url)) return true;
  return path.isAbsolute(url) && !url.includes('::');
}

/** A git error text fit to show an admin: credentials in URLs cut out, bounded. */
export function redactGitMessage(text: string): string {
  return text
    .replace(/(\/\/)[^@/\s]+@/g, '$1***@')
    .replace(/(Authorization:\s*\w+\s+)\S+/gi, '$1***')
    .trim()
    .slice(0, 500);
}

function gitFailure(err: unknown, what: string): AppError {
  const message = redactGitMessage(err instanceof Error ? err.message : String(err));
  const auth = /authentication failed|could not read (username|password)|permission denied|401|403/i.test(message);
  return new AppError(auth ? 'git/auth_failed' : 'git/unreachable', `${what}: ${message || 'git failed'}`, {
    details: { reason: auth ? 'auth' : 'unreachable' },
  });
}

function git(baseDir: string | undefined, token: string | null): SimpleGit {
  const config = token ? [`http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`] : [];
  // Only what git needs from the daemon's environment: no editor, pager or askpass program of the
  // operator's shell is ever run, and no prompt waits for a terminal the daemon does not have.
  return simpleGit({ baseDir, config, timeout: { block: GIT_TIMEOUT_MS }, maxConcurrentProcesses: 2, unsafe: { allowUnsafeSshCommand: true } }).env({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/nonexistent',
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=yes',
  });
}

/** The bare mirror of a product under `root`; the name is derived, so no setting can escape `root`. */
export function mirrorDir(root: string, product: string): string {
  const safe = product.toLowerCase().replace(/[^a-z0-9._-]+/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(product).digest('hex').slice(0, 8);
  return path.join(root, `${safe}-${hash}.git`);
}

/** True when `dir` holds a mirror (it may still be behind its remote). */
function hasMirror(dir: string): boolean {
  return existsSync(path.join(dir, 'HEAD'));
}

/** Clones the mirror when absent (or broken), otherwise fetches; tags and branches are pruned to the remote's. */
export async function syncMirror(source: GitRepoSource, dir: string): Promise<void> {
  if (!isAllowedRemote(source.url)) {
    throw new AppError('git/bad_url', 'The repository URL must be http(s), ssh, git, file or an absolute path', { details: { reason: 'bad_url' } });
  }
  if (hasMirror(dir)) {
    try {
      const repo = git(dir, source.token);
      await repo.remote(['set-url', 'origin', source.url]);
      await repo.fetch(['--prune', '--prune-tags', '--force', 'origin']);
      return;
    } catch {
      // A mirror left half-written by a crash, or a changed URL: start again from a clean clone.
      rmSync(dir, { recursive: true, force: true });
    }
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    await git(undefined, source.token).clone(source.url, dir, ['--mirror', '--quiet']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw gitFailure(err, 'Cannot fetch the repository');
  }
}

/**
 * Which release tags SAC trusts: none needed (`required` false), or only tags signed by one of
 * `allowedSigners` (OpenSSH allowed_signers text).
 */
export interface ReleaseTrust {
  required: boolean;
  allowedSigners: string;
}

export function releaseTrustOf(settings: Pick<SettingsValue<'git_repos'>, 'require_signed_tags' | 'allowed_signers'>): ReleaseTrust {
  const hasSigners = settings.allowed_signers.split('\n').some((l) => l.trim() && !l.trim().startsWith('#'));
  const required = settings.require_signed_tags === 'on' || (settings.require_signed_tags === 'auto' && hasSigners);
  return { required, allowedSigners: settings.allowed_signers };
}

function unsignedRelease(message: string): AppError {
  return new AppError('git/unsigned_release', message, { details: { reason: 'unsigned_release' } });
}

const execFileAsync = promisify(execFile);

/**
 * `git verify-tag` of one tag against the allowed signers, with nothing of this host's git or GnuPG
 * setup: system and global config off, HOME and GNUPGHOME a private scratch directory. The tag
 * must also carry its own name inside the signed object, so a signed tag cannot be re-published
 * under another version's name. Answers null when it verifies, else why not.
 */
async function tagRefusal(dir: string, tag: string, allowedSigners: string): Promise<string | null> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'sac-verify-tag-'));
  try {
    const signers = path.join(scratch, 'allowed_signers');
    writeFileSync(signers, `${allowedSigners}\n`, { mode: 0o600 });
    const args = ['-c', 'gpg.format=ssh', '-c', `gpg.ssh.allowedSignersFile=${signers}`, '-c', 'gpg.minTrustLevel=fully'];
    const { stdout } = await execFileAsync('git', [...args, 'verify-tag', '--format=%(tag)', '--end-of-options', tag], {
      cwd: dir,
      timeout: GIT_TIMEOUT_MS,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, GNUPGHOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_DIR: dir, LANG: 'C' },
    });
    return stdout.trim() === tag ? null : `the signed tag object names itself ${JSON.stringify(stdout.trim().slice(0, 100))}, not ${tag}`;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    return redactGitMessage(stderr.split('\n').filter((l) => /error|fatal|no principal|bad signature|could not verify/i.test(l)).join('; ') || 'the signature does not verify').slice(0, 300);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Refuses `tag` unless it is signed by an allowed signer (when the trust asks for signatures). */
export async function verifyReleaseTag(dir: string, tag: string, trust: ReleaseTrust): Promise<void> {
  if (!trust.required) return;
  const refusal = await tagRefusal(dir, tag, trust.allowedSigners);
  if (refusal) throw unsignedRelease(`The release tag ${tag} is not signed by an allowed signer: ${refusal}`);
}

/** Most tags at one commit that are tried. */
const MAX_TAGS_AT_COMMIT = 20;

/**
 * Refuses to build or serve `commit` unless some tag at it is signed by an allowed signer (when
 * the trust asks for signatures): the check made before a bundle is built and each time it is handed out.
 */
export async function verifyReleaseCommit(dir: string, commit: string, trust: ReleaseTrust): Promise<void> {
  if (!trust.required) return;
  const listed = await git(dir, null).raw(['for-each-ref', `--points-at=${commit}`, '--format=%(refname:strip=2)', 'refs/tags']);
  const tags = listed.split('\n').filter(isSafeGitRef).slice(0, MAX_TAGS_AT_COMMIT);
  if (tags.length === 0) throw unsignedRelease(`Commit ${commit.slice(0, 12)} has no release tag, and signed release tags are required`);
  const refusals: string[] = [];
  for (const tag of tags) {
    const refusal = await tagRefusal(dir, tag, trust.allowedSigners);
    if (!refusal) return;
    refusals.push(`${tag}: ${refusal}`);
  }
  throw unsignedRelease(`No tag at commit ${commit.slice(0, 12)} is signed by an allowed signer (${refusals.join('; ').slice(0, 400)})`);
}

/** A ref from settings or the remote that git could read as an option, or that is no ref at all. */
function badRef(ref: string): AppError {
  return new AppError('git/bad_ref', `${JSON.stringify(ref.slice(0, 100))} is not a usable branch or tag name`, { details: { reason: 'bad_ref' } });
}

/** The release tags of a mirror by the version they name (the first tag of each version). */
async function releaseTags(dir: string): Promise<Map<string, string>> {
  const byVersion = new Map<string, string>();
  for (const tag of (await git(dir, null).tags()).all.filter(isSafeGitRef)) {
    const v = versionFromTag(tag);
    if (v && !byVersion.has(v)) byVersion.set(v, tag);
  }
  return byVersion;
}

/** The commit of a release tag, the tag verified first (when the trust asks for signatures). */
async function readTaggedRelease(dir: string, version: string, tag: string, trust: ReleaseTrust): Promise<LatestVersion> {
  await verifyReleaseTag(dir, tag, trust);
  const commit = (await git(dir, null).revparse(['--verify', '--end-of-options', `${tag}^{commit}`])).trim();
  return { version, commit };
}

/** The versions the mirror has release tags of. */
export async function releaseVersions(dir: string): Promise<string[]> {
  return [...(await releaseTags(dir)).keys()];
}

/** The release of `version` in a synced mirror: its tag verified (when required) and its commit; `git/no_release` when no tag names it. */
export async function readRelease(dir: string, version: string, trust: ReleaseTrust): Promise<LatestVersion> {
  const tag = (await releaseTags(dir)).get(version);
  if (!tag) throw new AppError('git/no_release', `No release tag names version ${version}`, { details: { reason: 'no_release', version } });
  return readTaggedRelease(dir, version, tag, trust);
}

/**
 * Reads the latest version from a synced mirror, as the source says; with signed release tags
 * required, the newest release tag (or, for a version file, a tag at the branch's commit) must verify.
 */
export async function readLatestVersion(source: GitRepoSource, dir: string, trust: ReleaseTrust): Promise<LatestVersion> {
  const repo = git(dir, null);
  if (source.version_from === 'tag') {
    const byVersion = await releaseTags(dir);
    const version = newestVersion([...byVersion.keys()]);
    if (!version) throw new AppError('git/no_version', `No release tag (such as v2.1.8-SAC) in the repository of ${source.product}`, { details: { reason: 'no_version' } });
    return readTaggedRelease(dir, version, byVersion.get(version)!, trust);
  }
  const file = source.version_file ?? DEFAULT_VERSION_FILES[source.product];
  if (!file) throw new AppError('git/no_version', `No version file is named for ${source.product}`, { details: { reason: 'no_version' } });
  const ref = source.branch ?? 'HEAD';
  if (!isSafeGitRef(ref)) throw badRef(ref);
  let commit: string;
  let text: string;
  try {
    commit = (await repo.revparse(['--verify', '--end-of-options', `${ref}^{commit}`])).trim();
    text = await repo.show(['--end-of-options', `${commit}:${file}`]);
  } catch (err) {
    throw new AppError('git/no_version', `${file} is missing on ${ref}: ${redactGitMessage(err instanceof Error ? err.message : String(err))}`, {
      details: { reason: 'no_version' },
    });
  }
  const version = versionFromFile(text);
  if (!version) throw new AppError('git/no_version', `${file} on ${ref} names no version`, { details: { reason: 'no_version' } });
  await verifyReleaseCommit(dir, commit, trust);
  return { version, commit };
}

/**
 * Where agent versions and bundles come from: bare mirrors of the products' repositories, their
 * release tags (verified against the allowed signers when required) and `git archive` bundles.
 * `gitReleaseSource` runs git; service tests hand in a fake.
 */
export interface GitReleaseSource {
  hasMirror(dir: string): boolean;
  /** Clones or fetches the mirror of `source` into `dir`. */
  sync(source: GitRepoSource, dir: string): Promise<void>;
  /** The latest version in a synced mirror: the newest release tag or the version file, verified per `trust`. */
  latest(source: GitRepoSource, dir: string, trust: ReleaseTrust): Promise<LatestVersion>;
  /** Refuses `commit` (`git/unsigned_release`) unless a tag at it is signed by an allowed signer, when `trust` requires it. */
  verifyCommit(dir: string, commit: string, trust: ReleaseTrust): Promise<void>;
  /** The versions a synced mirror has release tags of. */
  releaseVersions(dir: string): Promise<string[]>;
  /** The verified release of `version` (its tag checked per `trust`) and its commit. */
  release(dir: string, version: string, trust: ReleaseTrust): Promise<LatestVersion>;
  /** Packs the mirror at `commit` into `file`; answers its SHA-256 and size. */
  buildBundle(dir: string, product: string, commit: string, file: string): Promise<{ sha256: string; size: number }>;
}

export const gitReleaseSource: GitReleaseSource = {
  hasMirror,
  sync: syncMirror,
  latest: readLatestVersion,
  verifyCommit: verifyReleaseCommit,
  releaseVersions,
  release: readRelease,
  buildBundle,
};
