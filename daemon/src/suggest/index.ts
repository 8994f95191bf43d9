/** Suggestions for the console's filters: the operation, its service, and the ingest step that keeps the value catalogue. */
export { catalogueRecorder, SuggestService } from './suggest.service.js';
export { suggestOperations } from './suggest.operations.js';
