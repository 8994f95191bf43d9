import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type EventsPage = RouterOutputs['events']['list'];
export type EventRow = EventsPage['items'][number];
export type EventDetail = RouterOutputs['events']['byId'];
export type EventsQuery = RouterInputs['events']['list'];

export const eventsApi = {
  list: (query: EventsQuery) => call(() => trpc.events.list.query(query)),
  byId: (id: string) => call(() => trpc.events.byId.query({ id })),
};
