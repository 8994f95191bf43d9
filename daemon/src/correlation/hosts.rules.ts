/** Host liveness: `online` while the last heartbeat (or daily report) is within the stale threshold. */
export type HostStatus = 'online' | 'stale';

/** Types that prove an agent is alive and update a host's last-seen. */
export function isLivenessType(type: string): boolean {
  return type === 'agent.heartbeat' || type.startsWith('report.daily.');
}

/** Stale threshold for a host: the per-product override when one exists, else the default. */
export function staleMinutesFor(product: string, defaultMinutes: number, perProduct: Readonly<Record<string, number>>): number {
  return perProduct[product] ?? defaultMinutes;
}

export function hostStatus(lastSeenMs: number, nowMs: number, staleMinutes: number): HostStatus {
  return nowMs - lastSeenMs <= staleMinutes * 60_000 ? 'online' : 'stale';
}

/** What the silence scan does about one host's `host_silence` problem. */
export type SilenceAction = 'none' | 'open' | 'reopen';

/** The silence problem as the scan sees it (null: the host never had one). */
export interface SilenceState {
  status: 'open' | 'acknowledged' | 'resolved';
  resolved_by: 'manual' | 'auto' | null;
  resolved_ms: number | null;
}

/**
 * Silence decision: a stale host gets its problem opened, or the same problem reopened — except
 * within the cooldown after an operator resolved it by hand.
 */
export function silenceAction(status: HostStatus, problem: SilenceState | null, nowMs: number, cooldownMinutes: number): SilenceAction {
  if (status !== 'stale') return 'none';
  if (!problem) return 'open';
  if (problem.status !== 'resolved') return 'none';
  if (problem.resolved_by === 'manual' && nowMs - (problem.resolved_ms ?? 0) < cooldownMinutes * 60_000) return 'none';
  return 'reopen';
}

/** Readable silence duration for a problem title: "5 h 3 min", "12 min", "40 s". */
export function formatSilence(ms: number): string {
  const totalMin = Math.floor(ms / 60_000);
  if (totalMin < 1) return `${Math.max(0, Math.floor(ms / 1000))} s`;
  const h = Math.floor(totalMin / 60);
  const m = totalMin % 60;
  return h > 0 ? (m > 0 ? `${h} h ${m} min` : `${h} h`) : `${m} min`;
}
