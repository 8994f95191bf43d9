/** Event ingest: derivation of stored fields, group commit, commit listeners. */
export { IngestService, overloaded, type CommitListener, type CommittedEvent, type IngestContext } from './ingest.service.js';
export { actorUser, hostKey } from './ingest.rules.js';
