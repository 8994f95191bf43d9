import type { Severity, SettingsValue } from '../../../shared/src/index.js';

/**
 * Escalation rules: pure functions. A policy re-notifies an open (unacknowledged) problem every
 * `interval_minutes` after SAC opened it, `max_repeats` times; when it names final channels or
 * e-mail addresses, one more step one interval later goes to those as well. A run that finds
 * several steps due (the job was not running) takes only the latest, so nobody gets a burst.
 */
export type EscalationPolicy = NonNullable<SettingsValue<'escalation'>['policies'][Severity]>;

export function hasFinalStep(p: EscalationPolicy): boolean {
  return p.final_channels.length > 0 || p.final_emails.length > 0;
}

/** Steps of the policy in all: the repeats and the final step if there is one. */
export function totalSteps(p: EscalationPolicy): number {
  return p.max_repeats + (hasFinalStep(p) ? 1 : 0);
}

/** The step due at `nowMs` for a problem opened at `openedMs` whose last step was `lastStep` (0: none), or null. */
export function dueStep(p: EscalationPolicy, openedMs: number, lastStep: number, nowMs: number): number | null {
  const elapsed = Math.floor((nowMs - openedMs) / (p.interval_minutes * 60_000));
  const step = Math.min(elapsed, totalSteps(p));
  return step > lastStep ? step : null;
}

export function isFinalStep(p: EscalationPolicy, step: number): boolean {
  return hasFinalStep(p) && step === totalSteps(p);
}
