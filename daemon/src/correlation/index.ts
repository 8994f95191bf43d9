/**
 * Correlation: pure rules (keys, windows, replays, flaps, host status, silence, hardware, transitions,
 * logins by source and by user),
 * the ingest listener, and how a problem is shown (API view and stream message).
 */
export { CorrelationService, type CorrelationEffects } from './correlation.service.js';
export {
  crossHostRules,
  DEFAULT_CROSS_HOST_RULES,
  storedCorrelationSettings,
  type CorrelationSettings,
  type CorrelationSettingsSource,
  type CrossHostRules,
} from './correlation.settings.js';
export * from './correlation.rules.js';
export * from './hosts.rules.js';
export * from './problem-state.rules.js';
export * from './mass-silence.rules.js';
export { problemView, streamProblem } from './problem.views.js';
export { loginUser, SUCCESS_LOGIN_TYPES } from './logins.rules.js';
export * from './user-logins.rules.js';
