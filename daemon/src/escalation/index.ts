/** Escalation of unacknowledged problems: the leader-only job's service and its pure step rules. */
export { EscalationService } from './escalation.service.js';
