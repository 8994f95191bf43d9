/** Events read side: list with filters and cursor, one event, views with the RD Gateway flap mark. */
export { EventsService, type HostnameResolver } from './events.service.js';
export { eventView } from './event.views.js';
export { dayRange, decodeCursor, encodeCursor, invalidParameter, parseInstant, zoneOffsetMs } from './query.rules.js';
