import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';

const PRODUCT = 'rdp-login-monitor';
const AGENTS = { 'WS-S1': '5d0e8b1a-3c2f-4a6d-9e7b-1f2a3b4c5d6e', 'WS-S2': '6e1f9c2b-4d3a-4b7e-8f8c-2a3b4c5d6e7f' } as const;

/** An SSH signing key made with ssh-keygen: its private key file and its allowed_signers line. */
function signingKey(dir: string, name: string): { file: string; signer: string } {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  const [type, key] = readFileSync(`${file}.pub`, 'utf8').trim().split(' ');
  return { file, signer: `${name}@release.example ${type} ${key}` };
}

describe.each(STORE_KINDS)('signed release tags and safe refs on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let keys: string;
  let trusted: { file: string; signer: string };
  let stranger: { file: string; signer: string };
  const hostIds: Record<string, string> = {};

  const saveGitRepos = (body: Record<string, unknown>) =>
    api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ product: PRODUCT, url: repos.fileUrl(PRODUCT) }], ...body } });
  const refresh = async () => (await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token })).body.versions[0];
  const poll = async (hostname: keyof typeof AGENTS) =>
    (await (await fetch(`${sac.url}/api/v1/agent/poll?agent_instance_id=${AGENTS[hostname]}`, { headers: { Authorization: `Bearer ${sac.apiKey}` } })).json()) as {
      update: { url: string } | null;
    };
  const jobOf = async (hostname: string) => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${hostIds[hostname]}`, { token })).body.jobs[0];

  beforeAll(async () => {
    keys = mkdtempSync(path.join(os.tmpdir(), 'sac-signing-keys-'));
    trusted = signingKey(keys, 'release');
    stranger = signingKey(keys, 'stranger');
    repos = await startGitRepos();
    repos.commit(PRODUCT, { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'Write-Host deploy' }, 'v2.1.7-SAC');
    repos.commit(PRODUCT, { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC', trusted.file);
    sac = await startTestSac(kind);
    token = await adminToken(sac);
    await api(sac, 'PATCH', '/api/v1/settings/agent_updates', { token, body: { enabled: true, max_parallel: 5 } });
    for (const [hostname, instance] of Object.entries(AGENTS)) {
      await ingestEvent(sac, {
        type: 'agent.heartbeat',
        category: 'agent',
        source: { product: PRODUCT, product_version: '2.1.7-SAC', agent_instance_id: instance },
        host: { hostname, os_family: 'windows' },
      });
    }
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) hostIds[h.hostname] = h.id;
  });
  afterAll(async () => {
    await sac?.close();
    await repos?.close();
    rmSync(keys, { recursive: true, force: true });
  });

  it('refuses a branch or version file that starts with - when the settings are saved', async () => {
    const target = path.join(keys, 'written-by-git');
    for (const row of [{ branch: `--output=${target}`, version_from: 'file' }, { branch: '-b' }, { version_file: '--output=x' }]) {
      const saved = await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ product: PRODUCT, url: repos.fileUrl(PRODUCT), ...row }] } });
      expect(saved.status).toBe(400);
      expect(JSON.stringify(saved.body)).toMatch(/must be a (branch name|path in the repository), not starting with -|must be a branch name \(not starting with -/);
    }
    expect(existsSync(target)).toBe(false);
  });

  it('refuses allowed signers that are not in allowed_signers format', async () => {
    for (const allowed_signers of ['ssh-ed25519 AAAA', 'someone@example ssh-ed25519 not*base64', 'someone@example ssh-dss AAAAB3Nza']) {
      const saved = await saveGitRepos({ allowed_signers });
      expect(saved.status).toBe(400);
      expect(JSON.stringify(saved.body)).toMatch(/line 1/);
    }
  });

  it('accepts a release tag signed by an allowed signer, and builds and serves its bundle', async () => {
    expect((await saveGitRepos({ allowed_signers: `# release keys\n${trusted.signer}\n` })).status).toBe(200);
    expect(await refresh()).toMatchObject({ product: PRODUCT, latest_version: '2.1.8-SAC', error: null });
    expect((await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-S1']}/agent-update`, { token })).status).toBe(201);
    const offered = await poll('WS-S1');
    expect(offered.update).not.toBeNull();
    const download = await fetch(offered.update!.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');
  });

  it('refuses an unsigned newer tag and one signed by a key not in the list, keeping the signed version, and says why', async () => {
    repos.commit(PRODUCT, { 'version.txt': '2.1.9-SAC\r\n' }, 'v2.1.9-SAC');
    const unsigned = await refresh();
    expect(unsigned).toMatchObject({ latest_version: '2.1.8-SAC' });
    expect(unsigned.error).toMatch(/release tag v2\.1\.9-SAC is not signed by an allowed signer/);

    repos.commit(PRODUCT, { 'version.txt': '2.2.0-SAC\r\n' }, 'v2.2.0-SAC', stranger.file);
    const strange = await refresh();
    expect(strange).toMatchObject({ latest_version: '2.1.8-SAC', error_reason: 'unsigned_release' });
    expect(strange.error).toMatch(/release tag v2\.2\.0-SAC is not signed by an allowed signer/);
    const listed = await api(sac, 'GET', '/api/v1/agents/versions', { token });
    expect(listed.body.versions[0].error).toBe(strange.error);
  });

  it('neither builds nor serves the bundle of a job whose release is not signed, and fails the job with the reason', async () => {
    expect((await saveGitRepos({ allowed_signers: trusted.signer, require_signed_tags: 'off' })).status).toBe(200);
    expect(await refresh()).toMatchObject({ latest_version: '2.2.0-SAC', error: null });
    expect((await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-S2']}/agent-update`, { token })).status).toBe(201);
    expect((await saveGitRepos({ allowed_signers: trusted.signer, require_signed_tags: 'auto' })).status).toBe(200);

    expect((await poll('WS-S2')).update).toBeNull();
    const job = await jobOf('WS-S2');
    expect(job).toMatchObject({ state: 'failed', target_version: '2.2.0-SAC' });
    expect(job.output).toMatch(/No tag at commit [0-9a-f]{12} is signed by an allowed signer/);
  });

  it('with the setting on and no signers refuses even a well-signed release; auto with signers takes it', async () => {
    repos.commit(PRODUCT, { 'version.txt': '2.3.0-SAC\r\n' }, 'v2.3.0-SAC', trusted.file);
    expect((await saveGitRepos({ allowed_signers: '', require_signed_tags: 'on' })).status).toBe(200);
    expect((await refresh()).error).toMatch(/release tag v2\.3\.0-SAC is not signed by an allowed signer/);
    expect((await saveGitRepos({ allowed_signers: trusted.signer, require_signed_tags: 'auto' })).status).toBe(200);
    expect(await refresh()).toMatchObject({ latest_version: '2.3.0-SAC', error: null });
  });
});
