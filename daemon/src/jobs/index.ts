/** Leader-elected periodic jobs (a store lease per job). */
export { JobRunner, type Job } from './job-runner.js';
