import type { Severity } from '../../../shared/src/index.js';
import type { SettingsService } from '../settings/index.js';

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

/**
 * Registers the `SAC_*` defaults of the categories correlation owns (correlation, host_status)
 * and reads the effective values — stored settings win — from the settings service (cached there).
 */
export function storedCorrelationSettings(
  settings: Pick<SettingsService, 'get' | 'registerEnvDefaults'>,
  env: { windowMinutes: number; staleMinutes: number; silenceCooldownMinutes: number },
): CorrelationSettingsSource {
  settings.registerEnvDefaults('correlation', () => ({ window_minutes: env.windowMinutes }));
  settings.registerEnvDefaults('host_status', () => ({
    stale_minutes: env.staleMinutes,
    silence_cooldown_minutes: env.silenceCooldownMinutes,
  }));
  return async () => {
    const [correlation, hostStatus, overrides, hidden] = await Promise.all([
      settings.get('correlation'),
      settings.get('host_status'),
      settings.get('severity_overrides'),
      settings.get('hidden_types'),
    ]);
    return {
      windowMinutes: correlation.window_minutes,
      severityOverrides: overrides.overrides,
      hiddenTypes: hidden.types,
      staleMinutes: hostStatus.stale_minutes,
      staleMinutesByProduct: hostStatus.stale_minutes_by_product,
      silenceCooldownMinutes: hostStatus.silence_cooldown_minutes,
    };
  };
}
