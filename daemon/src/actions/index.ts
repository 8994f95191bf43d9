/**
 * Remote actions: the agent command channel (`CommandsService`), session listing and logoff over
 * WinRM or through the agent, RD Gateway target mapping, and WinRM/SSH administrator access tests
 * (`RemoteActionsService`); their REST routes and tRPC router. WinRM and SSH are reached through
 * the shells of `../remote-shell`.
 */
export { CommandsService, commandView, type CommandTiming } from './commands.service.js';
export { RemoteActionsService, type RemoteActionsDeps } from './remote-actions.service.js';
export { createActionsRoutes } from './actions.routes.js';
export { actionsRouter } from './actions.router.js';
