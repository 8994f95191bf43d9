/** Hosts: liveness, silence scan, list/detail with inventory, deletion. */
export { HostsService, hostNotFound } from './hosts.service.js';
