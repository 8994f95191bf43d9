/** Login intelligence for the console: a user's logins and baseline, the baselines' rebuild (the rules are in correlation/). */
export { LoginsService, type BaselineRebuild } from './logins.service.js';
export { loginsOperations } from './logins.operations.js';
