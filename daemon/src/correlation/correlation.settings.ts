import type { Severity } from '../../../shared/src/index.js';

/** The settings the correlation rules read: environment defaults, overridden by stored settings. */
export interface CorrelationSettings {
  windowMinutes: number;
  /** Per event type (or dotted prefix): the severity SAC stores instead of the agent's. */
  severityOverrides: Record<string, Severity>;
  /** Types (or dotted prefixes) kept in storage but left out of lists, dashboard, host counters and problems. */
  hiddenTypes: string[];
  staleMinutes: number;
  staleMinutesByProduct: Record<string, number>;
  silenceCooldownMinutes: number;
}

/** Reads the current settings; called once per ingest batch and per request, so it must be cheap. */
export type CorrelationSettingsSource = () => Promise<CorrelationSettings>;

/** Settings from the environment alone. */
export function envCorrelationSettings(config: {
  windowMinutes: number;
  staleMinutes: number;
  silenceCooldownMinutes: number;
}): CorrelationSettings {
  return {
    windowMinutes: config.windowMinutes,
    severityOverrides: {},
    hiddenTypes: [],
    staleMinutes: config.staleMinutes,
    staleMinutesByProduct: {},
    silenceCooldownMinutes: config.silenceCooldownMinutes,
  };
}
