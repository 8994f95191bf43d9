/** Hosts: list/detail with inventory, deletion, and liveness (status, heartbeats, silence scan). */
export { HostsService, hostNotFound } from './hosts.service.js';
export { recordLiveness, SilenceScanner } from './liveness.js';
export { hostsOperations } from './hosts.operations.js';
