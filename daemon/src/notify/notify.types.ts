import type { Language, NotifyChannel, Severity } from '../../../shared/src/index.js';

/** Effective channel and policy configuration (stored settings over the environment). */
export interface NotifySettings {
  telegram: { botToken: string | null; chatIds: string[]; apiBase: string };
  webhook: { url: string | null; secret: string | null; headers: Record<string, string>; timeoutMs: number };
  smtp: { url: string | null; from: string | null; to: string[] };
  /** `vapid`: keys an admin stored in the settings; null = the ones generated on first start. */
  push: { subject: string; vapid: { publicKey: string; privateKey: string } | null };
  policy: {
    minSeverity: Severity;
    enabledChannels: NotifyChannel[];
    /** Channels that carry agent lifecycle events. */
    lifecycleChannels: NotifyChannel[];
    hiddenTypes: string[];
    /** Type pattern → severity used instead of the agent's (the same overrides correlation applies). */
    severityOverrides: Record<string, Severity>;
    language: Language;
  };
  report: { time: string; timezone: string };
  /** Public console URL ("Open in console" buttons); null when unknown. */
  publicUrl: string | null;
}
