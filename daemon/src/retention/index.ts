/** Retention: the leader-only job pruning sign-in throttle rows, expired credentials and codes, old audit entries and (optionally) old events. */
export { RetentionService, type RetentionOptions, type RetentionResult } from './retention.service.js';
