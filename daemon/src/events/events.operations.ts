import { z } from 'zod';
import { EventListQuerySchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { EventsService } from './events.service.js';

const Event = z.looseObject({ event_id: z.string(), host_id: z.string(), type: z.string() });

/** Events (any signed-in user): list with filters and cursor, one event with its payload. */
export function eventsOperations(events: EventsService) {
  return [
    defineOperation({
      id: 'events.list',
      summary: 'List events',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/events',
      input: EventListQuerySchema,
      output: z.looseObject({ items: z.array(Event), next_cursor: z.string().nullable() }),
      errors: { '404': 'No such host group' },
      handler: (input) => events.list(input),
    }),
    defineOperation({
      id: 'events.byId',
      summary: 'One event with its payload',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/events/{id}',
      input: ByIdInput,
      output: Event,
      handler: (input) => events.byId(input.id),
    }),
  ];
}
