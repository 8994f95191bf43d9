import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, adminToken, login } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { health, load, missingAcknowledged, type Answer } from '../helpers/outage.js';

/**
 * The disk troubles are real, not mocked: a full disk is a small tmpfs mounted by the test, filled
 * to the last byte by a filler file and freed again by deleting it; a read-only disk is an ext4
 * image on a loop device that the kernel turns read-only on an error (`errors=remount-ro`, as a
 * failing disk does), triggered through ext4's sysfs test hook. Mounting needs root (CI runs the
 * tests as root); elsewhere the scenarios are skipped.
 */
const isRoot = process.getuid?.() === 0;

/** Writes zeros into `file` until the file system refuses with ENOSPC. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // The last partial pages too, so that not even a small write fits.
  const tail = openSync(file, 'a');
  try {
    for (;;) writeSync(tail, Buffer.alloc(512));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(tail);
  }
}

describe.skipIf(!isRoot)('store outage: the SQLite disk full under load', () => {
  const mountPoint = mkdtempSync(path.join(tmpdir(), 'sac-full-'));
  let mounted = false;
  let sac: TestSac | null = null;
  let agents: { stop(): Promise<void> } | null = null;
  afterAll(async () => {
    // A failed test leaves its agents posting: closing the daemon would wait for them for ever.
    await agents?.stop();
    await sac?.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After (never 500), reports degraded health, loses nothing acknowledged and recovers without a restart', async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', mountPoint]);
    mounted = true;
    const dataDir = path.join(mountPoint, 'data');
    const filler = path.join(mountPoint, 'filler');
    sac = await startTestSac('sqlite', { SAC_DATA_DIR: dataDir });
    const token = await adminToken(sac);
    const traffic = load(sac, 4);
    agents = traffic;
    // Ingest flowing before the fault: how fast depends on the machine's load, not on SAC (FerretDB
    // on a CPU shared with other work stored 18 in 10 s), so only the test's budget bounds it.
    await expect.poll(() => traffic.answers.filter((a) => a.status === 201).length, { timeout: 60_000 }).toBeGreaterThan(20);

    fillDisk(filler);
    const fullAt = Date.now();
    await expect.poll(() => traffic.answers.filter((a) => a.at > fullAt && a.status === 503).length, { timeout: 20_000 }).toBeGreaterThan(3);
    const degraded = await health(sac);
    expect(degraded.status).toBe(503);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.problem).toBe("events cannot be stored: the store's disk is full");

    // Console writes fail cleanly too (an API key with its audit row, settings, a sign-in's session):
    // 503 store/unavailable, or stored when the write fits in WAL pages the disk had already given.
    const consoleWrites = [
      await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'during the outage' } }),
      await api(sac, 'PATCH', '/api/v1/settings/security', { token, body: { require_totp: 'none' } }),
      await login(sac, sac.adminUsername, sac.adminPassword),
      await api(sac, 'POST', '/trpc/apiKeys.create', { token, body: { label: 'through tRPC' } }),
    ];
    for (const res of consoleWrites) {
      // REST names the code in `error.code`, tRPC in `error.data.appCode`.
      const code = res.body?.error?.data?.appCode ?? res.body?.error?.code;
      if (res.status === 503) expect([code, Number(res.headers.get('retry-after')) > 0]).toEqual(['store/unavailable', true]);
      else expect(res.status).toBeLessThan(300);
    }
    expect(consoleWrites.some((res) => res.status === 503)).toBe(true);

    rmSync(filler);
    const backAt = Date.now();
    await expect.poll(() => traffic.answers.some((a) => a.at > backAt && a.status === 201), { timeout: 30_000, interval: 20 }).toBe(true);
    const recoveredAt = Math.min(...traffic.answers.filter((a) => a.at > backAt && a.status === 201).map((a) => a.at));
    const recoveryMs = recoveredAt - backAt;
    await traffic.stop();
    // eslint-disable-next-line no-console -- the issue asks for the recovery time to be printed
    console.log(`SQLite disk full: ingest recovered ${recoveryMs} ms after space was freed (no daemon restart)`);
    // The fact is that it recovered (the poll above), on this daemon: how fast is the printed figure, not a bound.
    await expect.poll(async () => (await health(sac!)).status, { timeout: 5000 }).toBe(200);
    const after = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'after the outage' } });
    expect(after.status).toBe(201);

    const statuses = new Set(traffic.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([201, 503]);
    expect(traffic.answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null && Number(a.retryAfter) > 0)).toBe(true);
    const describeAnswer = (a: Answer) => `${a.event_id} acknowledged ${a.at - fullAt} ms after the disk filled (freed at ${backAt - fullAt} ms)`;
    expect(await missingAcknowledged(sac, traffic.answers, describeAnswer)).toEqual([]);
    expect(sac.logs.filter((l) => /"level":60/.test(l))).toEqual([]);
    // The ingest thread lived through the fault: never lost and replaced.
    expect(sac.logs.filter((l) => /the ingest thread (failed|exited)/.test(l))).toEqual([]);
  }, 120_000);
});

describe.skipIf(!isRoot)('store outage: the SQLite disk turns read-only under load', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'sac-ro-'));
  const mountPoint = path.join(work, 'mnt');
  let mounted = false;
  let sac: TestSac | null = null;
  let agents: { stop(): Promise<void> } | null = null;
  afterAll(async () => {
    // A failed test leaves its agents posting: closing the daemon would wait for them for ever.
    await agents?.stop();
    await sac?.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(work, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After (never 500), reports degraded health and loses nothing acknowledged', async (ctx) => {
    const image = path.join(work, 'disk.img');
    const fd = openSync(image, 'w');
    ftruncateSync(fd, 64 * 1024 * 1024);
    closeSync(fd);
    execFileSync('mkdir', [mountPoint]);
    try {
      execFileSync('mkfs.ext4', ['-q', '-O', '^has_journal', image], { stdio: 'pipe' });
      execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mountPoint], { stdio: 'pipe' });
    } catch (err) {
      // A container without loop devices cannot run this scenario; the full-disk one still runs.
      ctx.skip(`no loop-mounted ext4 here: ${String((err as { stderr?: unknown }).stderr ?? err).trim()}`);
    }
    mounted = true;
    const device = path.basename(execFileSync('findmnt', ['-n', '-o', 'SOURCE', mountPoint], { encoding: 'utf8' }).trim());
    sac = await startTestSac('sqlite', { SAC_DATA_DIR: path.join(mountPoint, 'data') });
    const token = await adminToken(sac);
    const traffic = load(sac, 4);
    agents = traffic;
    // Ingest flowing before the fault: how fast depends on the machine's load, not on SAC (FerretDB
    // on a CPU shared with other work stored 18 in 10 s), so only the test's budget bounds it.
    await expect.poll(() => traffic.answers.filter((a) => a.status === 201).length, { timeout: 60_000 }).toBeGreaterThan(20);

    writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'SAC test: the disk fails\n');
    const readOnlyAt = Date.now();
    await expect.poll(() => traffic.answers.filter((a) => a.at > readOnlyAt && a.status === 503).length, { timeout: 20_000 }).toBeGreaterThan(3);
    const firstRefusal = Math.min(...traffic.answers.filter((a) => a.at > readOnlyAt && a.status === 503).map((a) => a.at));
    const degraded = await health(sac);
    expect([degraded.status, degraded.body.status]).toEqual([503, 'degraded']);
    expect(degraded.body.problem).toMatch(/^events cannot be stored: the store's disk (is read-only|fails to read or write)$/);
    const key = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'on a read-only disk' } });
    expect([key.status, key.body?.error?.code]).toEqual([503, 'store/unavailable']);
    await traffic.stop();
    // eslint-disable-next-line no-console -- how fast the failure is noticed, next to the recovery times
    console.log(`SQLite disk read-only: ingest answered 503 from ${firstRefusal - readOnlyAt} ms after the disk turned read-only`);

    // The kernel keeps an ext4 that failed read-only until it is unmounted (no rw remount), so there
    // is no recovery to measure here: the full-disk scenario measures it.
    const statuses = new Set(traffic.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([201, 503]);
    expect(traffic.answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null && Number(a.retryAfter) > 0)).toBe(true);
    const describeAnswer = (a: Answer) => `${a.event_id} acknowledged ${a.at - readOnlyAt} ms after the disk turned read-only`;
    expect(await missingAcknowledged(sac, traffic.answers, describeAnswer)).toEqual([]);
    expect(sac.logs.filter((l) => /"level":60/.test(l))).toEqual([]);
    // The ingest thread lived through the fault: never lost and replaced.
    expect(sac.logs.filter((l) => /the ingest thread (failed|exited)/.test(l))).toEqual([]);
  }, 120_000);
});
