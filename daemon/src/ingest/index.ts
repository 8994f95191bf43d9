/** Event ingest: derivation of stored fields, group commit, commit listeners, the ingest thread. */
export { IngestService, overloaded, type IngestContext } from './ingest.service.js';
export { ListenerCommitter, type BatchCommitter, type CommitListener } from './batch-committer.js';
export { actorUser, hostKey } from './ingest.rules.js';
export { createListenerCommitter } from './commit-listeners.js';
export { IngestThread } from './ingest-thread.js';
