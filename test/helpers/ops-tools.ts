import { execFileSync, spawnSync } from 'node:child_process';

/**
 * The path of an operator tool (nginx, promtool, systemd-analyze, openssl), or the reason the test
 * skips: only when it is missing and this is not root. As root (CI) `npm test`'s pretest installs
 * it (scripts/setup-test-deps.sh), so a missing tool is a failure there, never a skip.
 */
export function opsTool(name: string): { path: string; skip: null } | { path: null; skip: string } {
  const found = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (found) return { path: found, skip: null };
  if (process.getuid?.() === 0) throw new Error(`${name} is missing: run scripts/setup-test-deps.sh (it installs it as root)`);
  return { path: null, skip: `${name} is not installed and this is not root (scripts/setup-test-deps.sh installs it as root)` };
}

/** Runs a tool; returns its exit status and combined output. */
export function runTool(file: string, args: string[], input?: string): { status: number; output: string } {
  const res = spawnSync(file, args, { encoding: 'utf8', input, timeout: 60_000 });
  return { status: res.status ?? -1, output: `${res.stdout ?? ''}${res.stderr ?? ''}` };
}

/** A throwaway self-signed certificate for 127.0.0.1/localhost, written into `dir`. */
export function throwawayCert(openssl: string, dir: string): { cert: string; key: string } {
  const cert = `${dir}/cert.pem`;
  const key = `${dir}/key.pem`;
  execFileSync(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}
