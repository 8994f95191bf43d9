export { agentVersionStatus, compareAgentVersions, isOutdated, newestSeenByProduct, parseAgentVersion } from './agent-version.rules.js';
export { AgentVersionsService, type AgentVersionView, type GitTestResult } from './agent-versions.service.js';
export { updatesOperations } from './updates.operations.js';
export { AgentUpdatesService, agentUpdateView, subscribeAgentUpdates, type AgentUpdateView } from './agent-updates.service.js';
export { createAgentUpdatesRoutes } from './agent-updates.routes.js';
export { gitReleaseSource, type GitReleaseSource } from './git-source.js';
