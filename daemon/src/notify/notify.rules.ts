import { compareSeverity, NOTIFY_CHANNELS, type NotifyChannel, type Severity } from '../../../shared/src/index.js';
import { localParts } from '../../../shared/src/index.js';
import { effectiveSeverity, isHiddenType } from '../correlation/index.js';
import type { NotifySettings } from './notify.types.js';

/**
 * Routing and retry rules of the notifier: pure functions, no I/O.
 *
 * Policy: an event is sent when its severity (after the per-type overrides) is high or
 * critical and at or above the minimum; a new problem when at or above the minimum. Sent whatever the minimum:
 * `rdp.login.success`, `ssh.login.success`, `rdg.connection.*`, agent lifecycle events (only to
 * the lifecycle channels) and daily reports. Never: hidden types. `details.telegram_via: "agent"`
 * removes Telegram (the agent already posted it). Only enabled and configured channels carry anything.
 */
export type Policy = NotifySettings['policy'];

/** The facts about an event the routing needs. */
export interface EventFacts {
  type: string;
  severity: Severity;
  telegram_via: unknown;
}

const ALWAYS_SENT_TYPES = new Set(['rdp.login.success', 'ssh.login.success']);

/** Agent lifecycle events and their kin (agent updates). */
export function isLifecycleType(type: string): boolean {
  return type === 'agent.lifecycle' || type.startsWith('agent.lifecycle.') || type.startsWith('agent.update.');
}

/** Types sent regardless of the minimum severity (lifecycle aside). */
export function isAlwaysSentType(type: string): boolean {
  return ALWAYS_SENT_TYPES.has(type) || type.startsWith('rdg.connection.');
}

/** Channels whose settings are complete enough to deliver anything. */
export function configuredChannels(s: NotifySettings, hasPushSubscriptions: boolean): NotifyChannel[] {
  const ok: Record<NotifyChannel, boolean> = {
    telegram: Boolean(s.telegram.botToken) && s.telegram.chatIds.length > 0,
    webhook: Boolean(s.webhook.url),
    smtp: Boolean(s.smtp.url && s.smtp.from) && s.smtp.to.length > 0,
    push: hasPushSubscriptions,
  };
  return NOTIFY_CHANNELS.filter((c) => ok[c]);
}

function usable(policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  return NOTIFY_CHANNELS.filter((c) => policy.enabledChannels.includes(c) && configured.includes(c));
}

function atLeast(severity: Severity, min: Severity): boolean {
  return compareSeverity(severity, min) >= 0;
}

/** Channels an ingested event goes to (empty for most events: the common, cheap case). */
export function eventChannels(ev: EventFacts, policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  if (isHiddenType(ev.type, policy.hiddenTypes)) return [];
  const severity = effectiveSeverity(ev.type, ev.severity, policy.severityOverrides);
  let channels: NotifyChannel[];
  if (isLifecycleType(ev.type)) channels = usable(policy, configured).filter((c) => policy.lifecycleChannels.includes(c));
  else if (isAlwaysSentType(ev.type)) channels = usable(policy, configured);
  else if (atLeast(severity, 'high') && atLeast(severity, policy.minSeverity)) channels = usable(policy, configured);
  else return [];
  return ev.telegram_via === 'agent' ? channels.filter((c) => c !== 'telegram') : channels;
}

/** Channels a newly opened problem goes to. */
export function problemOpenedChannels(p: { type: string; severity: Severity }, policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  if (isHiddenType(p.type, policy.hiddenTypes)) return [];
  return atLeast(p.severity, policy.minSeverity) ? usable(policy, configured) : [];
}

/** A resolved notice goes to the channels that carried the opening, while they are still usable. */
export function problemResolvedChannels(carriers: readonly NotifyChannel[], policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  return usable(policy, configured).filter((c) => carriers.includes(c));
}

/** The daily report goes to every usable channel, whatever the minimum severity. */
export function reportChannels(policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  return usable(policy, configured);
}

/** The console sign-in lock alert goes to the chat messenger only. */
export function loginLockChannels(policy: Policy, configured: readonly NotifyChannel[]): NotifyChannel[] {
  return usable(policy, configured).filter((c) => c === 'telegram');
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** What follows a failed attempt number `attempts` (1-based). */
export function afterFailure(
  attempts: number,
  maxAttempts: number,
  failure: { permanent: boolean; retryAfterMs: number | null },
  retry: RetryPolicy,
  nowMs: number,
): { status: 'pending'; next_attempt_ms: number } | { status: 'failed' } {
  if (failure.permanent || attempts >= maxAttempts) return { status: 'failed' };
  // Telegram's retry_after is a demand, not a hint: wait at least that long.
  const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempts - 1));
  return { status: 'pending', next_attempt_ms: nowMs + Math.max(backoff, failure.retryAfterMs ?? 0) };
}

/** `HH:MM` (24 h) → minute of the day, or null when malformed. */
export function parseTimeOfDay(value: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The local day whose daily report is due at `nowMs`, or null before the configured time. */
export function dueReportDay(nowMs: number, timeOfDay: string, timeZone: string): string | null {
  const at = parseTimeOfDay(timeOfDay);
  if (at === null) return null;
  const local = localParts(nowMs, timeZone);
  return local.minuteOfDay >= at ? local.day : null;
}
