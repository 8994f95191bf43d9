import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, login } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { allEventIds } from '../helpers/read.js';
import { tempDir } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';
import { startWebhookPeer, type WebhookPeer } from '../peers/webhook.peer.js';

const WEBHOOK_SECRET = 'backup-test-webhook-secret';

/** `npm run <script> -- <args>` with only the given SAC_* variables; resolves with its exit code and output. */
async function npmRun(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

describe('backup and restore of the embedded store', () => {
  let hook: WebhookPeer;
  const daemons: TestSac[] = [];
  afterAll(async () => {
    for (const d of daemons) await d.close();
    await hook?.close();
  });

  // Two daemon starts, two npm/tsx processes and a few hundred ingests: minutes on a loaded 2-core machine.
  it('snapshots the store while ingest runs; the restored copy has every event acknowledged before, sign-in and decryptable secrets', { timeout: 180_000 }, async () => {
    hook = await startWebhookPeer(WEBHOOK_SECRET);
    const t = await startTestSac('sqlite');
    daemons.push(t);
    const admin = await login(t, t.adminUsername, t.adminPassword);
    const token = admin.body.token as string;
    const patched = await api(t, 'PATCH', '/api/v1/settings/webhook', { token, body: { url: hook.url, secret: WEBHOOK_SECRET } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    // Ingest under load: four agents posting back to back until the backup has finished.
    const acked: { id: string; atMs: number }[] = [];
    let stop = false;
    const agent = async () => {
      while (!stop) {
        const event = buildEvent();
        const res = await postEvent(t.url, t.apiKey, event);
        if (res.status === 201) acked.push({ id: event.event_id, atMs: Date.now() });
        else expect([201, 503]).toContain(res.status);
      }
    };
    const load = Promise.all([agent(), agent(), agent(), agent()]);
    try {
      await expect.poll(() => acked.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(300);
    } catch (err) {
      stop = true;
      throw err;
    }

    const backupDir = path.join(tempDir('sac-backup-'), 'nightly');
    const startedMs = Date.now();
    const ackedBefore = acked.filter((a) => a.atMs < startedMs).map((a) => a.id);
    let backup: Awaited<ReturnType<typeof npmRun>>;
    try {
      backup = await npmRun('backup', [backupDir], { SAC_DATA_DIR: t.dataDir });
    } finally {
      stop = true;
    }
    const ackedDuring = acked.filter((a) => a.atMs >= startedMs).length;
    await load;
    expect(backup.code, backup.stderr).toBe(0);
    // Ingest went on answering 201 while the snapshot was taken.
    expect(ackedDuring).toBeGreaterThan(0);
    expect(backup.stdout).toContain(`saved apart to ${backupDir}.master-key (mode 0600)`);
    expect(readdirSync(backupDir).sort()).toEqual(['manifest.json', 'sac.sqlite']);
    expect(statSync(`${backupDir}.master-key`).mode & 0o777).toBe(0o600);
    await t.close();
    daemons.pop();

    const restoredDir = path.join(tempDir('sac-restore-'), 'data');
    const restore = await npmRun('restore', [backupDir], { SAC_DATA_DIR: restoredDir });
    expect(restore.code, restore.stderr).toBe(0);
    expect(existsSync(path.join(restoredDir, 'master-key'))).toBe(true);

    // The bootstrap-api-key file is not part of a backup (agents hold the key); the key itself is in the store.
    const r = await startTestSac('sqlite', { SAC_DATA_DIR: restoredDir, SAC_BOOTSTRAP_API_KEY: t.apiKey });
    daemons.push(r);
    const signedIn = await login(r, t.adminUsername, t.adminPassword);
    expect(signedIn.status).toBe(200);
    const rToken = signedIn.body.token as string;
    const restored = await allEventIds(r, rToken);
    expect(ackedBefore.filter((id) => !restored.has(id))).toEqual([]);
    expect(ackedBefore.length).toBeGreaterThanOrEqual(300);
    expect((await postEvent(r.url, t.apiKey, buildEvent())).status).toBe(201);

    const webhook = await api(r, 'GET', '/api/v1/settings/webhook', { token: rToken });
    expect(webhook.body.values.secret).toEqual({ set: true });
    const sent = await trpc(r, rToken, 'mutation', 'notifications.test', { channel: 'webhook' });
    expect(sent.data, JSON.stringify(sent.error)).toMatchObject({ ok: true });
    expect(hook.deliveries.some((d) => d.body.kind === 'test' && d.signatureValid)).toBe(true);
  });
});
