/** Problems: list, detail with timeline, acknowledge and resolve, over REST and tRPC. */
export { ProblemsService, TIMELINE_LIMIT } from './problems.service.js';
export { createProblemsRoutes } from './problems.routes.js';
export { problemsRouter } from './problems.router.js';
