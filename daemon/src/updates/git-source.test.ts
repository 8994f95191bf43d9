import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSafeGitRef } from '../../../shared/src/index.js';
import { readLatestVersion, releaseTrustOf, type GitRepoSource } from './git-source.js';

describe('git refs from settings', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sac-git-ref-'));
    execFileSync('git', ['init', '--quiet', '--bare', path.join(dir, 'repo.git')]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never hands a branch that starts with - to git, even one stored before it was refused at save', async () => {
    const target = path.join(dir, 'written');
    const source: GitRepoSource = { product: 'ssh-monitor', url: '/x', branch: `--output=${target}`, token: null, version_from: 'file', version_file: null };
    await expect(readLatestVersion(source, path.join(dir, 'repo.git'), { required: false, allowedSigners: '' })).rejects.toMatchObject({ code: 'git/bad_ref' });
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual(['repo.git']);
  });

  it('accepts branch names and refuses options, ranges and revision syntax', () => {
    for (const ok of ['main', 'release/2.1', 'v2.1.8-SAC', 'feature_x']) expect(isSafeGitRef(ok), ok).toBe(true);
    for (const bad of ['-b', '--output=/tmp/x', 'a..b', 'HEAD@{1}', 'a b', 'x^{commit}', 'a:b', '/abs', 'x.lock', 'x/', '.hidden', 'a/.b', '']) expect(isSafeGitRef(bad), bad).toBe(false);
  });

  it('requires signed tags on "on", on "auto" only once a signer is configured, never on "off"', () => {
    const signer = 'release@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJwyKCy8V07isEPBgG/6EYY4lDEM0wSrRCE48GyIHjFj';
    expect(releaseTrustOf({ require_signed_tags: 'auto', allowed_signers: '# none yet\n' }).required).toBe(false);
    expect(releaseTrustOf({ require_signed_tags: 'auto', allowed_signers: signer }).required).toBe(true);
    expect(releaseTrustOf({ require_signed_tags: 'on', allowed_signers: '' }).required).toBe(true);
    expect(releaseTrustOf({ require_signed_tags: 'off', allowed_signers: signer }).required).toBe(false);
  });
});
