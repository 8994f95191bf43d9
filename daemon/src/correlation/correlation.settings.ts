import { CorrelationSettingsSchema, type Severity, type SettingsValue } from '../../../shared/src/index.js';
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
  /** The rules that look across hosts (logins by source address, mass silence). */
  crossHost: CrossHostRules;
}

/** Thresholds of the cross-host rules, each with its switch and the severity of its problem. */
export interface CrossHostRules {
  loginAfterFailures: { enabled: boolean; minFailures: number; windowMs: number; severity: Severity };
  distributedBruteforce: { enabled: boolean; minHosts: number; windowMs: number; severity: Severity };
  massSilence: { enabled: boolean; sharePercent: number; minHosts: number; withinMs: number; graceMs: number; severity: Severity };
  /** The per-user baselines keep this learning period whether the rule is on or not. */
  newSource: { enabled: boolean; learningMs: number; severity: Severity };
  impossibleTravel: { enabled: boolean; speedKmh: number; severity: Severity };
}

const MINUTE_MS = 60_000;

/** The cross-host rules of the stored `correlation` settings. */
export function crossHostRules(c: SettingsValue<'correlation'>): CrossHostRules {
  return {
    loginAfterFailures: {
      enabled: c.login_after_failures_enabled,
      minFailures: c.login_after_failures_min_failures,
      windowMs: c.login_after_failures_window_minutes * MINUTE_MS,
      severity: c.login_after_failures_severity,
    },
    distributedBruteforce: {
      enabled: c.distributed_bruteforce_enabled,
      minHosts: c.distributed_bruteforce_min_hosts,
      windowMs: c.distributed_bruteforce_window_minutes * MINUTE_MS,
      severity: c.distributed_bruteforce_severity,
    },
    massSilence: {
      enabled: c.mass_silence_enabled,
      sharePercent: c.mass_silence_share_percent,
      minHosts: c.mass_silence_min_hosts,
      withinMs: c.mass_silence_within_minutes * MINUTE_MS,
      graceMs: c.mass_silence_grace_minutes * MINUTE_MS,
      severity: c.mass_silence_severity,
    },
    newSource: { enabled: c.new_source_enabled, learningMs: c.new_source_learning_days * 24 * 60 * MINUTE_MS, severity: c.new_source_severity },
    impossibleTravel: { enabled: c.impossible_travel_enabled, speedKmh: c.impossible_travel_speed_kmh, severity: c.impossible_travel_severity },
  };
}

/** The cross-host rules with every setting at its default. */
export const DEFAULT_CROSS_HOST_RULES: CrossHostRules = crossHostRules(CorrelationSettingsSchema.parse({}));

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
      crossHost: crossHostRules(correlation),
    };
  };
}
