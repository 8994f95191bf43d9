/** Leader-elected periodic jobs (a store lease per job). */
export { JobRunner, type Fence, type Job } from './job-runner.js';
