/**
 * Remote actions: the agent command channel (`CommandsService`), session listing and logoff over
 * WinRM or through the agent, RD Gateway target mapping, and WinRM/SSH administrator access tests
 * (`RemoteActionsService`); their operations and the agents' command channel routes. WinRM and SSH
 * are reached through the shells of `../remote-shell`.
 */
export { CommandsService, commandNotFound, commandView, type CommandTiming } from './commands.service.js';
export { RemoteActionsService, type RemoteActionsDeps } from './remote-actions.service.js';
export { createActionsRoutes } from './actions.routes.js';
export { actionsOperations } from './actions.operations.js';
