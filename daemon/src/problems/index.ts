/** Problems: list, detail with timeline, acknowledge and resolve; views for the API and the stream. */
export { ProblemsService, TIMELINE_LIMIT } from './problems.service.js';
export { problemView, streamProblem } from './problem.views.js';
export { createProblemsRoutes } from './problems.routes.js';
export { problemsRouter } from './problems.router.js';
