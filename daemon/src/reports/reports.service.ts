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

/** A host group a report can cover: its name and the ids of its hosts now (`group/not_found` for an unknown one). */
export type ReportGroup = (groupId: string) => Promise<{ id: string; name: string; host_ids: string[] }>;

export interface GeneratedReport {
  report: DailyReportRecord;
  channels: NotifyChannel[];
}

/**
 * The daily SSH/RDP report: aggregates the agents' `report.daily.*` events of the last 24 h, keeps
 * the HTML report in the store and sends it per policy. The scheduled run happens once per local
 * day even with several daemons on one store: it is a leader job (`daily_report`), and the day is
 * claimed in the store first. An admin may also generate one for a host group: the agent reports
 * of the group's hosts only, kept for the console and not sent (the scheduled report, of the whole
 * fleet, is the one the channels get).
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
      group: ReportGroup;
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

  /** An admin's "generate now": the last 24 h up to now, sent like the scheduled one; of a host group: kept, not sent. */
  async trigger(actor: Actor, groupId?: string): Promise<GeneratedReport> {
    const s = await this.deps.source.load();
    const group = groupId === undefined ? null : await this.deps.group(groupId);
    return this.generate('manual', actor, localParts(this.deps.clock.now(), s.report.timezone).day, group);
  }

  private async generate(
    trigger: 'schedule' | 'manual',
    actor: Actor,
    day: string,
    group: Awaited<ReturnType<ReportGroup>> | null = null,
  ): Promise<GeneratedReport> {
    const requestedBy = actor.user?.username ?? null;
    const s = await this.deps.source.load();
    const to = this.deps.clock.now();
    const from = to - DAY_MS;
    const members = group && new Set(group.host_ids);
    const agentReports = (await this.deps.store.reports.agentReports(from, to)).filter((e) => !members || members.has(e.host_id));
    const summary = aggregateDailyReports(agentReports, from, to);
    const report: DailyReportRecord = {
      id: randomUUID(),
      day,
      trigger,
      requested_by: requestedBy,
      created_ms: to,
      period_from_ms: from,
      period_to_ms: to,
      summary,
      html: renderReportHtml(summary, { day, lang: s.policy.language, timeZone: s.report.timezone, generatedMs: to, group: group?.name }),
      group_id: group?.id ?? null,
      group_name: group?.name ?? null,
      host_ids: group?.host_ids ?? null,
    };
    await this.deps.store.reports.insert(report);
    const channels = group ? [] : await this.deps.notify.sendReport(report);
    const details = { day, trigger, hosts: summary.hosts.length, channels, ...(group ? { group: group.name } : {}) };
    this.deps.logger.info({ report_id: report.id, ...details }, 'daily report generated');
    await this.deps.audit.record({ action: 'report.generated', actor, target: `report:${report.id}`, details });
    return { report, channels };
  }

  /**
   * Newest first; `groupId`: that group's reports. `within`: the host ids a caller limited to host
   * groups may see (null: every host): such a caller gets the reports of groups whose hosts (when
   * generated) are all theirs, never a fleet report.
   */
  async list(limit: number, beforeMs?: number, groupId?: string, within: ReadonlySet<string> | null = null): Promise<DailyReportListItem[]> {
    const reports = await this.deps.store.reports.list(limit, beforeMs, groupId);
    return within ? reports.filter((r) => r.host_ids !== null && r.host_ids.every((id) => within.has(id))) : reports;
  }

  /** The hosts a report covers (null: the whole fleet, or no such report), for the host scope. */
  async hostsOf(id: string): Promise<string[] | null> {
    return (await this.deps.store.reports.byId(id))?.host_ids ?? null;
  }

  async byId(id: string): Promise<DailyReportRecord> {
    const report = await this.deps.store.reports.byId(id);
    if (!report) throw new AppError('report/not_found', 'No such report');
    return report;
  }
}
