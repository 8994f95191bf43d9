import { describe, expect, it } from 'vitest';
import { MaintenanceWindowInputSchema } from '../../../shared/src/index.js';
import { agentLifecycleEvent } from '../../../test/helpers/events.js';
import { adminActor, CORRELATION, ingestNow, serviceBed, silentLogger } from '../../../test/helpers/services.js';
import { Facts } from '../facts.js';
import { SilenceScanner } from '../hosts/index.js';
import { MaintenanceService } from './maintenance.service.js';

// A Wednesday, 14:00 in Yekaterinburg (UTC+5).
const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MINUTE = 60_000;

describe('a weekly maintenance window in a time zone, on a fake clock', () => {
  const bed = serviceBed(T0);

  it('is in force from its local start for its duration, and holds back host_silence until it ends', async () => {
    const { store, clock, settings, audit, startJobs } = await bed.start();
    const maintenance = new MaintenanceService(store.maintenance, settings, clock, audit, async () => [], store.hosts);
    const scanner = new SilenceScanner(store, new Facts(() => undefined), clock, silentLogger, async () => CORRELATION, maintenance);
    const jobs = startJobs([{ name: 'host_silence', intervalMs: MINUTE, run: (fence) => scanner.scan(fence) }]);
    await maintenance.create(
      MaintenanceWindowInputSchema.parse({
        hosts: ['WS01'],
        rules: ['host_silence'],
        starts_at: '2026-06-01T00:00:00Z',
        recurrence: { weekdays: [3], start: '14:05', duration_minutes: 30, timezone: 'Asia/Yekaterinburg' },
        reason: 'patching',
      }),
      adminActor,
    );
    await ingestNow(store, clock, [agentLifecycleEvent({ hostname: 'WS01', os_family: 'windows', product: 'rdp-login-monitor' }, 'agent.heartbeat', '1.0.0')]);
    const silences = () => store.problems.list({ statuses: ['open'], rule: 'host_silence', hidden: [], limit: 10 });

    await jobs.advance(4 * MINUTE);
    expect(await maintenance.active('ws01')).toEqual([]);
    await jobs.advance(MINUTE);
    expect(await maintenance.active('ws01')).toHaveLength(1);
    // Stale from 14:11 local, but the window lasts until 14:35.
    await jobs.advance(29 * MINUTE);
    expect(await maintenance.active('ws01')).toHaveLength(1);
    expect(await silences()).toEqual([]);
    await jobs.advance(MINUTE);
    expect(await maintenance.active('ws01')).toEqual([]);
    expect(await silences()).toEqual([expect.objectContaining({ hostname: 'WS01', created_ms: T0 + 35 * MINUTE, title: 'No heartbeat from WS01 for 35 min' })]);
  });
});
