/** Hosts: list/detail with inventory, deletion, and liveness (status, heartbeats, silence scan). */
export { HostsService } from './hosts.service.js';
export { hostNotFound } from '../errors.js';
export { recordLiveness, SilenceScanner } from './liveness.js';
export { hostsOperations } from './hosts.operations.js';
