/** Problems: list, detail with timeline, acknowledge and resolve, over REST and tRPC. */
export { ProblemsService, problemNotFound, TIMELINE_LIMIT } from './problems.service.js';
export { problemsOperations } from './problems.operations.js';
