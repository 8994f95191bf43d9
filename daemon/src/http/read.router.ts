import { z } from 'zod';
import { DashboardRangeQuerySchema, EventListQuerySchema, HostListQuerySchema, ProblemActionBodySchema, ProblemAssignBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import type { DashboardsService } from '../dashboards/index.js';
import type { EventsService } from '../events/index.js';
import type { HostsService } from '../hosts/index.js';
import type { ProblemsService } from '../problems/index.js';
import { adminProcedure, operatorProcedure, router } from './trpc.js';

const ById = z.strictObject({ id: z.string().min(1).max(128) });
const Action = ProblemActionBodySchema.extend({ id: ById.shape.id });

/** tRPC `events.*`: list (filters and cursor as `GET /api/v1/events`), byId. */
export function eventsRouter(events: EventsService) {
  return router({
    list: operatorProcedure.input(EventListQuerySchema).query(({ input }) => events.list(input)),
    byId: operatorProcedure.input(ById).query(({ input }) => events.byId(input.id)),
  });
}

/** tRPC `hosts.*`: list (`q`), byId with inventory, delete (admin). */
export function hostsRouter(hosts: HostsService) {
  return router({
    list: operatorProcedure
      .input(HostListQuerySchema.optional())
      .query(async ({ input }) => ({
        items: await hosts.list(input?.q, input?.outdated === undefined ? undefined : input.outdated === 'true', input?.sort, input?.dir),
      })),
    byId: operatorProcedure.input(ById).query(({ input }) => hosts.byId(input.id)),
    delete: adminProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await hosts.remove(input.id, ctx);
      return { deleted: true };
    }),
  });
}

/** tRPC `problems.*`: list, byId with timeline, acknowledge, resolve, reopen, assign (both roles). */
export function problemsRouter(problems: ProblemsService) {
  return router({
    list: operatorProcedure.input(ProblemListQuerySchema).query(({ input, ctx }) => problems.list(input, ctx.user.id)),
    byId: operatorProcedure.input(ById).query(({ input }) => problems.byId(input.id)),
    acknowledge: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.acknowledge(input.id, input.comment, ctx)),
    resolve: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.resolve(input.id, input.comment, ctx)),
    assignees: operatorProcedure.query(() => problems.assignees()),
    reopen: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.reopen(input.id, input.comment, ctx)),
    assign: operatorProcedure
      .input(ProblemAssignBodySchema.extend({ id: ById.shape.id }))
      .mutation(({ input, ctx }) => problems.assign(input.id, input.assignee_id, input.expected_assignee_id, ctx)),
  });
}

/** tRPC `dashboards.*`: summary, eventsPerHour (the console's chart), both over an optional range. */
export function dashboardsRouter(dashboards: DashboardsService) {
  return router({
    summary: operatorProcedure.input(DashboardRangeQuerySchema.optional()).query(({ input }) => dashboards.summary(input)),
    eventsPerHour: operatorProcedure.input(DashboardRangeQuerySchema.optional()).query(({ input }) => dashboards.eventsPerHour(input)),
  });
}

/** The services behind the read API and problem handling. */
export interface ReadServices {
  events: EventsService;
  hosts: HostsService;
  problems: ProblemsService;
  dashboards: DashboardsService;
}
