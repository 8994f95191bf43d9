/** Leader-elected periodic jobs (a store lease per job). */
export { JobRunner, type Fence, type Job, type JobState } from './job-runner.js';
