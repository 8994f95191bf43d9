import { describe, expect, it } from 'vitest';
import { adminActor, ingestNow, serviceBed, silentLogger } from '../../../test/helpers/services.js';
import type { NotifyService } from '../notify/index.js';
import { EscalationService } from './escalation.service.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MINUTE = 60_000;

describe('escalation, the escalation job on a fake clock', () => {
  const bed = serviceBed(T0);

  it('re-notifies an unacknowledged problem each interval and ends with the final step', async () => {
    const { store, clock, settings, startJobs } = await bed.start();
    await settings.update('escalation', { policies: { high: { interval_minutes: 15, max_repeats: 2, final_channels: ['telegram'], final_emails: [] } } }, adminActor);
    const sent: { problem: string; step: number; final: unknown; at: number }[] = [];
    const notify: Pick<NotifyService, 'escalate'> = {
      escalate: async (p, step, final) => {
        sent.push({ problem: p.title, step, final, at: clock.now() });
        return ['webhook'];
      },
    };
    const escalation = new EscalationService({ store, settings, notify, clock, logger: silentLogger, groupHosts: async () => new Set() });
    const jobs = startJobs([{ name: 'escalation', intervalMs: MINUTE, run: (fence) => escalation.run(fence) }]);
    await ingestNow(store, clock, [
      { type: 'rdp.login.failed', severity: 'high', title: 'Brute force on RDS01' },
      { type: 'rdp.login.success', severity: 'info', title: 'A sign-in' },
    ]);

    await jobs.advance(14 * MINUTE);
    expect(sent).toEqual([]);
    await jobs.advance(MINUTE);
    expect(sent).toEqual([{ problem: 'Brute force on RDS01', step: 1, final: null, at: T0 + 15 * MINUTE }]);
    await jobs.advance(30 * MINUTE);
    expect(sent.map((s) => [s.step, s.final, s.at])).toEqual([
      [1, null, T0 + 15 * MINUTE],
      [2, null, T0 + 30 * MINUTE],
      [3, { channels: ['telegram'], emails: [] }, T0 + 45 * MINUTE],
    ]);
    await jobs.advance(120 * MINUTE);
    expect(sent).toHaveLength(3);
  });

  it('stops for a problem acknowledged, while the other open one goes on', async () => {
    const { store, clock, settings, startJobs } = await bed.start();
    await settings.update('escalation', { policies: { high: { interval_minutes: 15, max_repeats: 2, final_channels: [], final_emails: [] } } }, adminActor);
    const sent: string[] = [];
    const escalation = new EscalationService({ store, settings, notify: { escalate: async (p, step) => (sent.push(`${p.hostname} ${step}`), []) }, clock, logger: silentLogger, groupHosts: async () => new Set() });
    const jobs = startJobs([{ name: 'escalation', intervalMs: MINUTE, run: (fence) => escalation.run(fence) }]);
    await ingestNow(store, clock, [
      { type: 'rdp.login.failed', severity: 'high', host: { hostname: 'RDS01' } },
      { type: 'rdp.login.failed', severity: 'high', host: { hostname: 'RDS02' } },
    ]);
    const rds01 = (await store.problems.list({ statuses: ['open'], hidden: [], limit: 5 })).find((p) => p.hostname === 'RDS01')!;
    await jobs.advance(10 * MINUTE);
    await store.problems.transition(rds01.id, ['open'], { status: 'acknowledged', now_ms: clock.now(), acknowledged_by: 'admin' });
    await jobs.advance(60 * MINUTE);
    expect(sent).toEqual(['RDS02 1', 'RDS02 2']);
  });
});
