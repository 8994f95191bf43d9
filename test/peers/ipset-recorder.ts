import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What the SSH sessions of an sshd peer ran through `sudo`, and whether the kernel's ipset saw it. */
export interface SudoRecorder {
  /** The PATH to give the sshd peer's sessions (`startSshd({ sessionPath })`): the recorder first. */
  sessionPath: string;
  /** True when the kernel lets ipset make sets: the recorder runs the real sudo (and so the real ipset). */
  kernel: boolean;
  /** One line per call: the session's client port (telling sessions apart), then sudo's arguments. */
  calls(): string[];
  /** Whether `address` is in the kernel's `set` now (only meaningful with `kernel`). */
  inSet(set: string, address: string): boolean;
  /** Removes the recorder and these addresses from the kernel's sets. */
  stop(cleanup?: readonly [set: string, address: string][]): void;
}

/** Whether this kernel lets ipset make sets (a container without NET_ADMIN refuses). */
function realIpset(): boolean {
  const name = `sac_probe_${randomBytes(3).toString('hex')}`;
  if (spawnSync('ipset', ['create', name, 'hash:ip', 'timeout', '0']).status !== 0) return false;
  spawnSync('ipset', ['destroy', name]);
  return true;
}

/**
 * A `sudo` put first on the SSH sessions' PATH that records each call and then runs the real sudo
 * — or, where the kernel refuses ipset, answers success without it (then only the record shows
 * what a host was asked to do).
 */
export function startSudoRecorder(): SudoRecorder {
  const dir = mkdtempSync(path.join(tmpdir(), 'sac-sudo-'));
  chmodSync(dir, 0o755);
  const log = path.join(dir, 'calls.log');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  const kernel = realIpset();
  const script = ['#!/bin/sh', `printf '%s %s\\n' "$(echo "$SSH_CONNECTION" | cut -d' ' -f2)" "$*" >> '${log}'`, kernel ? 'exec /usr/bin/sudo "$@"' : 'exit 0', ''].join('\n');
  writeFileSync(path.join(dir, 'sudo'), script, { mode: 0o755 });
  return {
    sessionPath: `${dir}:/usr/local/bin:/usr/bin:/bin`,
    kernel,
    calls: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean),
    inSet: (set, address) => spawnSync('ipset', ['test', set, address]).status === 0,
    stop(cleanup = []) {
      if (kernel) for (const [set, address] of cleanup) spawnSync('ipset', ['del', set, address, '-exist']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
