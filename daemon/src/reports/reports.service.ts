import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Fence } from '../jobs/index.js';
import { localParts, type NotifyChannel } from '../../../shared/src/index.js';
import { dueReportDay, type NotifyService, type NotifySettingsSource } from '../notify/index.js';
import type { DailyReportListItem, DailyReportRecord, Store } from '../store/index.js';
import { aggregateDailyReports } from './reports.rules.js';
import { renderReportHtml } from './reports.render.js';

const DAY_MS = 24 * 3600 * 1000;
/** How long a daemon may take to build and queue a report before another one takes the day over. */
const CLAIM_LEASE_MS = 10 * 60 * 1000;

export interface GeneratedReport {
  report: DailyReportRecord;
  channels: NotifyChannel[];
}

/**
 * The daily SSH/RDP report: aggregates the agents' `report.daily.*` events of the last 24 h, keeps
 * the HTML report in the store and sends it per policy. The scheduled run happens once per local
 * day even with several daemons on one store: it is a leader job (`daily_report`), and the day is
 * claimed in the store first.
 */
export class ReportsService {
  private readonly instanceId = randomUUID();

  constructor(
    private readonly deps: {
      store: Pick<Store, 'reports'>;
      clock: Clock;
      logger: Logger;
      notify: Pick<NotifyService, 'sendReport'>;
      source: NotifySettingsSource;
      audit: Pick<AuditService, 'record'>;
    },
  ) {}

  /**
   * Generates and sends the scheduled report when its local time has come and no daemon has done
   * it yet. The day's claim makes it once per day; the fence, checked between the claim and the
   * send, keeps a leader that was paused and replaced from sending: the successor either holds the
   * claim already (this daemon's claim fails) or takes it over only after the claim's 10 minutes.
   */
  async runIfDue(fence: Fence): Promise<GeneratedReport | null> {
    const s = await this.deps.source.load();
    const now = this.deps.clock.now();
    const day = dueReportDay(now, s.report.time, s.report.timezone);
    if (!day) return null;
    // A day without any agent report gets no scheduled report (a fresh install would otherwise send
    // an empty one at once); the check repeats, so the day's report follows the first agent report.
    if ((await this.deps.store.reports.agentReports(now - DAY_MS, now)).length === 0) return null;
    if (!(await this.deps.store.reports.claimDay(day, this.instanceId, now, now + CLAIM_LEASE_MS))) return null;
    await fence.check();
    const generated = await this.generate('schedule', { user: null, ip: undefined }, day);
    await this.deps.store.reports.finishDay(day, this.instanceId, generated.report.id);
    return generated;
  }

  /** An admin's "generate now": the last 24 h up to now, sent like the scheduled one. */
  async trigger(actor: Actor): Promise<GeneratedReport> {
    const s = await this.deps.source.load();
    return this.generate('manual', actor, localParts(this.deps.clock.now(), s.report.timezone).day);
  }

  private async generate(trigger: 'schedule' | 'manual', actor: Actor, day: string): Promise<GeneratedReport> {
    const requestedBy = actor.user?.username ?? null;
    const s = await this.deps.source.load();
    const to = this.deps.clock.now();
    const from = to - DAY_MS;
    const summary = aggregateDailyReports(await this.deps.store.reports.agentReports(from, to), from, to);
    const report: DailyReportRecord = {
      id: randomUUID(),
      day,
      trigger,
      requested_by: requestedBy,
      created_ms: to,
      period_from_ms: from,
      period_to_ms: to,
      summary,
      html: renderReportHtml(summary, { day, lang: s.policy.language, timeZone: s.report.timezone, generatedMs: to }),
    };
    await this.deps.store.reports.insert(report);
    const channels = await this.deps.notify.sendReport(report);
    this.deps.logger.info({ report_id: report.id, day, trigger, hosts: summary.hosts.length, channels }, 'daily report generated');
    await this.deps.audit.record({ action: 'report.generated', actor, target: `report:${report.id}`, details: { day, trigger, hosts: summary.hosts.length, channels } });
    return { report, channels };
  }

  list(limit: number, beforeMs?: number): Promise<DailyReportListItem[]> {
    return this.deps.store.reports.list(limit, beforeMs);
  }

  async byId(id: string): Promise<DailyReportRecord> {
    const report = await this.deps.store.reports.byId(id);
    if (!report) throw new AppError('report/not_found', 'No such report');
    return report;
  }
}
