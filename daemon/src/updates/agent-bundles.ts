import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { AppError } from '../errors.js';

/** How each product is packed: the Windows agent unpacks a zip, the Linux one a tarball. */
export function bundleFormat(product: string): { format: 'zip' | 'tar.gz'; contentType: string } {
  return product === 'ssh-monitor' ? { format: 'tar.gz', contentType: 'application/gzip' } : { format: 'zip', contentType: 'application/zip' };
}

export function bundleFile(root: string, product: string, version: string): string {
  const safeProduct = product.toLowerCase().replace(/[^a-z0-9._-]+/g, '_').slice(0, 40);
  const safeVersion = version.replace(/[^0-9A-Za-z.+_-]+/g, '_').slice(0, 64);
  return path.join(root, `${safeProduct}-${safeVersion}.${bundleFormat(product).format}`);
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Packs the repository at `commit` from its mirror with `git archive` into `file` (written beside
 * and renamed, so a crash never leaves half a bundle under the final name); answers its SHA-256.
 */
export async function buildBundle(mirrorDir: string, product: string, commit: string, file: string): Promise<{ sha256: string; size: number }> {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new AppError('update/bad_commit', 'The target commit is not a commit id', { kind: 'unexpected' });
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  try {
    await simpleGit({ baseDir: mirrorDir }).env({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/nonexistent' }).raw(['archive', `--format=${bundleFormat(product).format}`, '-o', partial, '--end-of-options', commit]);
  } catch (err) {
    throw new AppError('update/bundle_failed', `Packing ${product} at ${commit.slice(0, 12)} failed: ${err instanceof Error ? err.message.slice(0, 300) : 'git archive failed'}`, { kind: 'operational' });
  }
  renameSync(partial, file);
  return { sha256: await sha256Of(file), size: statSync(file).size };
}

/** True when a built bundle is still on disk with the recorded size. */
export function bundleIntact(file: string, size: number): boolean {
  return existsSync(file) && statSync(file).size === size;
}
