import { z } from 'zod';
import { EventListQuerySchema } from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { EventsService } from './events.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(128) });

/** tRPC `events.*`: list (filters and cursor as `GET /api/v1/events`), byId. */
export function eventsRouter(events: EventsService) {
  return router({
    list: operatorProcedure.input(EventListQuerySchema).query(({ input }) => events.list(input)),
    byId: operatorProcedure.input(ById).query(({ input }) => events.byId(input.id)),
  });
}
