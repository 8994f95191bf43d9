import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../test/helpers/events.js';
import { FakeClock } from '../../../test/helpers/fake-clock.js';
import { FakeClockJobs, ingestNow, openMemoryStore, settingsOf, silentLogger } from '../../../test/helpers/services.js';
import { tempDir } from '../../../test/helpers/stores.js';
import { loadConfig } from '../config.js';
import { settingsNotifySource } from '../notify/index.js';
import type { Store } from '../store/index.js';
import { ReportsService } from './reports.service.js';

// Midnight UTC: 05:00 in Yekaterinburg (UTC+5), where the report is due at 08:00 (03:00 UTC).
const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const agentReports = () => loadFixtures().filter((e) => e.type.startsWith('report.daily.')).map((e) => ({ ...e, event_id: randomUUID() }));

describe('the daily report job on a fake clock', () => {
  let store: Store;
  let jobs: FakeClockJobs;
  afterEach(async () => {
    await jobs?.stop();
    await store?.close();
  });

  it('generates and sends the report at the report hour in its time zone, once per local day', async () => {
    const loaded = loadConfig({ SAC_DATA_DIR: tempDir(), SAC_REPORT_TIME: '08:00', SAC_REPORT_TIMEZONE: 'Asia/Yekaterinburg' });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    store = await openMemoryStore();
    const clock = new FakeClock(T0);
    const { settings, audit } = settingsOf(store, clock);
    const sent: { day: string; at: number }[] = [];
    const reports = new ReportsService({
      store,
      clock,
      logger: silentLogger,
      notify: { sendReport: async (report) => (sent.push({ day: report.day, at: clock.now() }), ['webhook']) },
      source: settingsNotifySource(settings, loaded.config.notify),
      audit,
    });
    jobs = new FakeClockJobs(store, clock, [{ name: 'daily_report', intervalMs: MINUTE, run: async (fence) => void (await reports.runIfDue(fence)) }]);
    await ingestNow(store, clock, agentReports());

    await jobs.advance(3 * HOUR - MINUTE);
    expect(sent).toEqual([]);
    await jobs.advance(MINUTE);
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
