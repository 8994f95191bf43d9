/** Staged agent rollouts, version pins and rollbacks (issue #30 item 3). */
export { RolloutsService, rolloutNotFound } from './rollouts.service.js';
export { rolloutsOperations } from './rollouts.operations.js';
