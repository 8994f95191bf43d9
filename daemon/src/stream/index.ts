/** The live stream (SSE): the hub fed by the bus, and single-use tickets for EventSource. */
export { DEFAULT_STREAM_OPTIONS, StreamHub, type StreamAccess, type StreamOptions, type StreamSource } from './stream.service.js';
export { isStreamMessage } from './stream.rules.js';
export { StreamTickets } from './stream.tickets.js';
export { createStreamRoutes } from './stream.routes.js';
export { presentFacts, subscribeStream, type StreamPresentation } from './stream.present.js';
export { streamOperations } from './stream.operations.js';
