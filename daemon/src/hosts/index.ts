/** Hosts: liveness, silence scan, list/detail with inventory, deletion. */
export { HostsService, hostNotFound } from './hosts.service.js';
export { createHostsRoutes } from './hosts.routes.js';
export { hostsRouter } from './hosts.router.js';
