/**
 * Host groups: the service (which also tells other features which hosts a group holds), the pure
 * membership rules, and the operations.
 */
export { GroupsService, type GroupHosts } from './groups.service.js';
export { groupMembers, narrowToGroup, type GroupDefinition, type GroupHost } from './groups.rules.js';
export { groupsOperations } from './groups.operations.js';
