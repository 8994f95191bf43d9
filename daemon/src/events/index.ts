/** Events read side: list with filters and cursor, one event, views with the RD Gateway flap mark. */
export { EventsService, eventNotFound, type HostnameResolver } from './events.service.js';
export { eventView } from './event.views.js';
export { decodeCursor, encodeCursor, parseInstant } from './query.rules.js';
export { eventsOperations } from './events.operations.js';
