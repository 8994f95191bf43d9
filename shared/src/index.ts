/**
 * Schemas, enums and types shared by the SAC daemon and the console.
 * This package imports zod and nothing else.
 */
export * from './event.schema.js';
export * from './agent-values.js';
export * from './roles.js';
export * from './stream.types.js';
export * from './read-api.schema.js';
export * from './notify.schema.js';
export * from './users.schema.js';
export * from './audit.schema.js';
export * from './apikeys.schema.js';
export * from './git.rules.js';
export * from './settings.schema.js';
export * from './settings.help.js';
export * from './time-zone.js';
export * from './maintenance.schema.js';
export * from './groups.schema.js';
export * from './mfa.schema.js';
export * from './actions.schema.js';
export * from './mobile.schema.js';
export * from './geo.schema.js';
export * from './jobs.types.js';
export * from './login-intel.schema.js';
export * from './approvals.schema.js';
export * from './type-patterns.js';
export * from './suggest.schema.js';
export * from './bans.schema.js';
export * from './rollouts.schema.js';
export * from './trimmed-text.js';
