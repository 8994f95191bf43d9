/**
 * Correlation: pure rules (keys, windows, replays, flaps, host status, silence, hardware, transitions),
 * the ingest listener, and how a problem is shown (API view and stream message).
 */
export { CorrelationService, type CorrelationEffects } from './correlation.service.js';
export { storedCorrelationSettings, type CorrelationSettings, type CorrelationSettingsSource } from './correlation.settings.js';
export * from './correlation.rules.js';
export * from './hosts.rules.js';
export * from './problem-state.rules.js';
export { problemView, streamProblem } from './problem.views.js';
