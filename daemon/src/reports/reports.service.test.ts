import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../test/helpers/events.js';
import { ingestNow, serviceBed, silentLogger } from '../../../test/helpers/services.js';
import { tempDir } from '../../../test/helpers/stores.js';
import { loadConfig } from '../config.js';
import { settingsNotifySource } from '../notify/index.js';
import { ReportsService } from './reports.service.js';

// Midnight UTC: 05:00 in Yekaterinburg (UTC+5), where the report is due at 08:00 (03:00 UTC).
const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const agentReports = () => loadFixtures().filter((e) => e.type.startsWith('report.daily.')).map((e) => ({ ...e, event_id: randomUUID() }));

describe('the daily report job on a fake clock', () => {
  const bed = serviceBed(T0);

  it('generates and sends the report at the report hour in its time zone, once per local day', async () => {
    const loaded = loadConfig({ SAC_DATA_DIR: tempDir(), SAC_REPORT_TIME: '08:00', SAC_REPORT_TIMEZONE: 'Asia/Yekaterinburg' });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const { store, clock, settings, audit, startJobs } = await bed.start();
    const sent: { day: string; at: number }[] = [];
    const reports = new ReportsService({
      store,
      clock,
      logger: silentLogger,
      notify: { sendReport: async (report) => (sent.push({ day: report.day, at: clock.now() }), ['webhook']) },
      source: settingsNotifySource(settings, loaded.config.notify),
      audit,
      group: async (id) => ({ id, name: id, host_ids: [] }),
    });
    const jobs = startJobs([{ name: 'daily_report', intervalMs: 5 * MINUTE, run: async (fence) => void (await reports.runIfDue(fence)) }]);
    await ingestNow(store, clock, agentReports());

    await jobs.advance(3 * HOUR - 5 * MINUTE);
    expect(sent).toEqual([]);
    await jobs.advance(5 * MINUTE);
    expect(sent).toEqual([{ day: '2026-06-03', at: T0 + 3 * HOUR }]);
    const [stored] = await store.reports.list(5);
    expect(stored).toMatchObject({ day: '2026-06-03', trigger: 'schedule', created_ms: T0 + 3 * HOUR });

    // The rest of the local day: no second report; the next day's comes at its 08:00.
    await jobs.advance(23 * HOUR);
    expect(sent).toHaveLength(1);
    await ingestNow(store, clock, agentReports());
    await jobs.advance(HOUR);
    expect(sent).toEqual([
      { day: '2026-06-03', at: T0 + 3 * HOUR },
      { day: '2026-06-04', at: T0 + 27 * HOUR },
    ]);
  });
});
