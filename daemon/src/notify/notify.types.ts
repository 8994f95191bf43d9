import type { Severity, StreamProblem } from '../../../shared/src/index.js';

/** The four notification channels. */
export const CHANNELS = ['telegram', 'webhook', 'smtp', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Languages messages are written in. */
export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The event fields a notification carries (never the whole payload). */
export interface EventNotice {
  event_id: string;
  type: string;
  severity: Severity;
  title: string;
  summary: string | null;
  hostname: string;
  host_display: string | null;
  occurred_at: string;
  actor_user: string | null;
  ip: string | null;
}

/** Notices name no assignee: the outbox keeps what was sent, and sending does not depend on who handles it. */
export type ProblemNotice = Omit<StreamProblem, 'assignee_id' | 'assignee'>;

/** One host's line of a daily report. */
export interface ReportHostRow {
  host_id: string;
  hostname: string;
  platform: 'ssh' | 'rdp';
  successful_logins: number;
  failed_logins: number;
  active_bans: number;
  top_failed_ips: string[];
  active_users: string[];
  reported_at: string;
}

/** Aggregated content of one daily report. */
export interface ReportSummary {
  period_from: string;
  period_to: string;
  hosts: ReportHostRow[];
  totals: { hosts: number; ssh_hosts: number; rdp_hosts: number; successful_logins: number; failed_logins: number; active_bans: number };
  top_failed_ips: { ip: string; count: number }[];
}

/** What is being notified: stored in the outbox and formatted when it is delivered. */
export type NotificationContent =
  | { kind: 'event'; event: EventNotice }
  | { kind: 'problem'; action: 'opened' | 'resolved'; problem: ProblemNotice }
  /** Re-notification of a problem still open (not acknowledged): `step` counts from 1; `final` is the last step. */
  | { kind: 'problem'; action: 'escalated'; problem: ProblemNotice; step: number; final: boolean }
  | { kind: 'report'; report_id: string; day: string; summary: ReportSummary }
  | { kind: 'test'; requested_by: string }
  | { kind: 'login_locked'; username: string; ip: string | null; locked_until: string; attempts: number };

export type NotificationKind = NotificationContent['kind'];

/** Effective channel and policy configuration (stored settings over the environment). */
export interface NotifySettings {
  telegram: { botToken: string | null; chatIds: string[]; apiBase: string };
  webhook: { url: string | null; secret: string | null; headers: Record<string, string>; timeoutMs: number };
  smtp: { url: string | null; from: string | null; to: string[] };
  /** `vapid`: keys an admin stored in the settings; null = the ones generated on first start. */
  push: { subject: string; vapid: { publicKey: string; privateKey: string } | null };
  policy: {
    minSeverity: Severity;
    enabledChannels: Channel[];
    /** Channels that carry agent lifecycle events. */
    lifecycleChannels: Channel[];
    hiddenTypes: string[];
    /** Type pattern → severity used instead of the agent's (the same overrides correlation applies). */
    severityOverrides: Record<string, Severity>;
    language: Language;
  };
  report: { time: string; timezone: string };
  /** Public console URL ("Open in console" buttons); null when unknown. */
  publicUrl: string | null;
}
