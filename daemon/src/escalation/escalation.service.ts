import type { Logger } from 'pino';
import type { Severity } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import type { Fence } from '../jobs/index.js';
import type { NotifyService } from '../notify/index.js';
import { streamProblem } from '../correlation/index.js';
import type { SettingsService } from '../settings/index.js';
import type { Store } from '../store/index.js';
import { dueStep, isFinalStep } from './escalation.rules.js';

/** Most open problems looked at in one run (most recently active first). */
const SCAN_LIMIT = 2000;

/**
 * Escalation of problems nobody acknowledged: a leader-only job (JobRunner lease) that re-notifies
 * `open` problems per the severity's policy (setting `escalation`). Acknowledge or resolve stops it,
 * since only `open` problems are looked at. Each step is claimed in the store before it is sent, so
 * two daemons or a retried run never send a step twice. Inside a maintenance window the step is
 * recorded as suppressed, and nothing is sent for it after the window. A policy naming host groups
 * escalates only problems of their hosts (membership as it is at the run).
 */
export class EscalationService {
  constructor(
    private readonly deps: {
      store: Pick<Store, 'escalation' | 'problems'>;
      settings: Pick<SettingsService, 'get'>;
      notify: Pick<NotifyService, 'escalate'>;
      clock: Clock;
      logger: Logger;
      /** The ids of the hosts in any of these host groups now. */
      groupHosts: (groupIds: readonly string[]) => Promise<ReadonlySet<string>>;
    },
  ) {}

  async run(fence: Fence): Promise<void> {
    const { store, settings, notify, clock, logger } = this.deps;
    const { policies } = await settings.get('escalation');
    const severities = (Object.keys(policies) as Severity[]).filter((s) => policies[s]);
    if (severities.length === 0) return;
    const hidden = (await settings.get('hidden_types')).types;
    const open = await store.problems.list({ statuses: ['open'], severities, hidden, limit: SCAN_LIMIT });
    if (open.length === 0) return;
    const steps = await store.escalation.lastSteps(open.map((p) => p.id));
    const now = clock.now();
    // The hosts of the groups each policy names, read once per run.
    const hostsOf = new Map<Severity, ReadonlySet<string>>();
    for (const s of severities) {
      const groups = policies[s]?.group_ids ?? [];
      if (groups.length > 0) hostsOf.set(s, await this.deps.groupHosts(groups));
    }
    for (const problem of open) {
      const policy = policies[problem.severity];
      if (!policy) continue;
      if (hostsOf.get(problem.severity)?.has(problem.host_id) === false) continue;
      const step = dueStep(policy, problem.created_ms, steps.get(problem.id) ?? 0, now);
      if (step === null) continue;
      // Fenced, then claimed with a compare-and-set per step: a run replaced while paused stops,
      // and a step is sent once even if both runs reach it.
      await fence.check();
      if (!(await store.escalation.claimStep(problem.id, step, now))) continue;
      const final = isFinalStep(policy, step) ? { channels: policy.final_channels, emails: policy.final_emails } : null;
      const channels = await notify.escalate(streamProblem(problem), step, final);
      logger.info({ problem_id: problem.id, severity: problem.severity, step, final: final !== null, channels }, 'problem escalated');
    }
  }
}
