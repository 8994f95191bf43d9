/** Event ingest: derivation of stored fields, group commit, the ingest pipeline, the ingest thread. */
export { IngestService, overloaded, type IngestContext } from './ingest.service.js';
export { MeasuredCommitter, type BatchCommitter, type CommitObserver } from './batch-committer.js';
export { EnrichingCommitter } from './enrich-committer.js';
export { applyBatchEffects, createIngestPipeline, LocalCommitter, type BatchContext, type BatchEffects, type IngestPipeline } from './pipeline.js';
export { IngestThread } from './ingest-thread.js';
export { actorUser, hostKey } from './ingest.rules.js';
