import { createHmac } from 'node:crypto';

/**
 * The `known_hosts` name of a target: `host` on port 22, `[host]:port` otherwise (as OpenSSH
 * writes it).
 */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function patternMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith('|1|')) {
    // Hashed entry: |1|base64(salt)|base64(HMAC-SHA1(salt, name)).
    const [, , salt, hash] = pattern.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return re.test(name);
}

function hostsFieldMatches(field: string, name: string): boolean {
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (patternMatches(pattern.slice(1), name)) return false;
    } else if (patternMatches(pattern, name)) matched = true;
  }
  return matched;
}

export type HostKeyVerdict = 'match' | 'mismatch' | 'unknown' | 'revoked';

/**
 * Checks a server's host key (the SSH wire blob, whose base64 is what known_hosts stores) against
 * `known_hosts` text for `host`/`port`. `unknown` when no line names the host: the caller refuses
 * it (no trust on first use). `@cert-authority` lines are not used.
 */
export function verifyHostKey(knownHosts: string, host: string, port: number, keyBlob: Buffer): HostKeyVerdict {
  const name = knownHostsName(host, port);
  const presented = keyBlob.toString('base64');
  let named = false;
  let matched = false;
  for (const raw of knownHosts.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    const marker = parts[0]?.startsWith('@') ? parts.shift() : undefined;
    const [hosts, , key] = parts;
    if (!hosts || !key || marker === '@cert-authority' || !hostsFieldMatches(hosts, name)) continue;
    // A revocation wins wherever it stands in the file.
    if (marker === '@revoked') {
      if (key === presented) return 'revoked';
      continue;
    }
    named = true;
    if (key === presented) matched = true;
  }
  return matched ? 'match' : named ? 'mismatch' : 'unknown';
}
