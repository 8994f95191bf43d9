import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { AppError } from '../errors.js';
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

/** Clones the mirror when absent (or broken), otherwise fetches; tags and branches are pruned to the remote's. */
export async function syncMirror(source: GitRepoSource, dir: string): Promise<void> {
  if (!isAllowedRemote(source.url)) {
    throw new AppError('git/bad_url', 'The repository URL must be http(s), ssh, git, file or an absolute path', { details: { reason: 'bad_url' } });
  }
  if (existsSync(path.join(dir, 'HEAD'))) {
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

/** Reads the latest version from a synced mirror, as the source says. */
export async function readLatestVersion(source: GitRepoSource, dir: string): Promise<LatestVersion> {
  const repo = git(dir, null);
  if (source.version_from === 'tag') {
    const tags = (await repo.tags()).all;
    const byVersion = new Map<string, string>();
    for (const tag of tags) {
      const v = versionFromTag(tag);
      if (v && !byVersion.has(v)) byVersion.set(v, tag);
    }
    const version = newestVersion([...byVersion.keys()]);
    if (!version) throw new AppError('git/no_version', `No release tag (such as v2.1.8-SAC) in the repository of ${source.product}`, { details: { reason: 'no_version' } });
    const commit = (await repo.revparse([`${byVersion.get(version)}^{commit}`])).trim();
    return { version, commit };
  }
  const file = source.version_file ?? DEFAULT_VERSION_FILES[source.product];
  if (!file) throw new AppError('git/no_version', `No version file is named for ${source.product}`, { details: { reason: 'no_version' } });
  const ref = source.branch ?? 'HEAD';
  let commit: string;
  let text: string;
  try {
    commit = (await repo.revparse([`${ref}^{commit}`])).trim();
    text = await repo.show([`${commit}:${file}`]);
  } catch (err) {
    throw new AppError('git/no_version', `${file} is missing on ${ref}: ${redactGitMessage(err instanceof Error ? err.message : String(err))}`, {
      details: { reason: 'no_version' },
    });
  }
  const version = versionFromFile(text);
  if (!version) throw new AppError('git/no_version', `${file} on ${ref} names no version`, { details: { reason: 'no_version' } });
  return { version, commit };
}
