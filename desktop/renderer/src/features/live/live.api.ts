import { apiUrl, requestJson } from '../../api/http';

/** The live stream's endpoints (REST and Server-Sent Events: a stream is not a tRPC call). */
export const liveApi = {
  /** A one-use ticket: EventSource cannot send the bearer token. */
  ticket: async () => (await requestJson<{ ticket: string }>('POST', 'api/v1/stream/ticket')).ticket,
  /** The stream's URL for a ticket, resuming after the last event seen. */
  eventsUrl: (ticket: string, last: string | null) => {
    const url = new URL(apiUrl('api/v1/stream/events'));
    url.searchParams.set('ticket', ticket);
    if (last) url.searchParams.set('last_event_id', last);
    return url.toString();
  },
};
