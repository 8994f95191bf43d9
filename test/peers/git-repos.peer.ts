import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port.js';

/**
 * Real git repositories for the agent-version tests: bare repositories under a temp root, reachable
 * as `file://` URLs and through `git daemon` on loopback (`git://`). Commits and tags are made with
 * the git CLI, shaped like the real products (`version.txt` and tags of rdp-login-monitor, the
 * `SSH_MONITOR_VERSION="…"` line of the ssh-monitor script).
 */
export interface GitReposPeer {
  fileUrl(name: string): string;
  gitUrl(name: string): string;
  /**
   * Commits `files` to the default branch of bare repository `name` (created on first use), tagging
   * it when asked: a lightweight tag, or a tag signed with the SSH private key file `signingKey`.
   */
  commit(name: string, files: Record<string, string>, tag?: string, signingKey?: string): string;
  close(): Promise<void>;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'SAC test',
  GIT_AUTHOR_EMAIL: 'test@sac.invalid',
  GIT_COMMITTER_NAME: 'SAC test',
  GIT_COMMITTER_EMAIL: 'test@sac.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: os.tmpdir(),
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`git daemon exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('git daemon did not start listening');
}

export async function startGitRepos(): Promise<GitReposPeer> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sac-git-peer-'));
  const bare = path.join(root, 'srv');
  const work = path.join(root, 'work');
  mkdirSync(bare);
  mkdirSync(work);
  const port = await freePort();
  const daemon = spawn(
    'git',
    ['daemon', '--reuseaddr', '--export-all', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${bare}`, bare],
    { env: GIT_ENV, stdio: 'ignore' },
  );
  await waitForPort(port, daemon);
  return {
    fileUrl: (name) => `file://${path.join(bare, `${name}.git`)}`,
    gitUrl: (name) => `git://127.0.0.1:${port}/${name}.git`,
    commit(name, files, tag, signingKey) {
      const repo = path.join(work, name);
      const remote = path.join(bare, `${name}.git`);
      if (!existsSync(remote)) {
        git(root, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
        git(root, 'clone', '--quiet', remote, repo);
        git(repo, 'checkout', '--quiet', '-B', 'main');
      }
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
        writeFileSync(path.join(repo, file), text);
      }
      git(repo, 'add', '--all');
      git(repo, 'commit', '--quiet', '--allow-empty', '-m', tag ?? 'change');
      if (tag && signingKey) git(repo, '-c', 'gpg.format=ssh', '-c', `user.signingkey=${signingKey}`, 'tag', '-s', '-m', tag, tag);
      else if (tag) git(repo, 'tag', tag);
      git(repo, 'push', '--quiet', '--tags', 'origin', 'main');
      return git(repo, 'rev-parse', 'HEAD');
    },
    async close() {
      daemon.kill('SIGTERM');
      rmSync(root, { recursive: true, force: true });
    },
  };
}
