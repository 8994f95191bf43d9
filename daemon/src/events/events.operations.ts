import { z } from 'zod';
import { EventListQuerySchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import { eventNotFound, type EventsService } from './events.service.js';

const Event = z.looseObject({ event_id: z.string(), host_id: z.string(), type: z.string() });

/** Events (any signed-in user): list with filters and cursor, one event with its payload. */
export function eventsOperations(events: EventsService) {
  return [
    defineOperation({
      id: 'events.list',
      summary: 'List events',
      role: 'operator',
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/events',
      input: EventListQuerySchema,
      output: z.looseObject({ items: z.array(Event), next_cursor: z.string().nullable() }),
      errors: { '404': 'No such host group' },
      handler: (input, caller) => events.list(input, caller.scope),
    }),
    defineOperation({
      id: 'events.byId',
      summary: 'One event with its payload',
      role: 'operator',
      scope: { host: (input) => events.hostOf(input.id), notFound: (input) => eventNotFound(input.id) },
      method: 'GET',
      path: '/api/v1/events/{id}',
      input: ByIdInput,
      output: Event,
      handler: (input) => events.byId(input.id),
    }),
  ];
}
