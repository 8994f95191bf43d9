/** The live stream (SSE): the hub fed by the bus, and single-use tickets for EventSource. */
export { DEFAULT_STREAM_OPTIONS, StreamHub, type StreamOptions } from './stream.service.js';
export { StreamTickets } from './stream.tickets.js';
export { createStreamRoutes } from './stream.routes.js';
