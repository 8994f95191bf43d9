import {
  MaintenanceActiveQuerySchema,
  MaintenanceIdSchema,
  MaintenanceWindowInputSchema,
  MaintenanceWindowUpdateSchema,
} from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { MaintenanceService } from './maintenance.service.js';

/** tRPC `maintenance.*`: list, canManage, active, byId, create, update, end (managers per the `maintenance` setting, checked by the service). */
export function maintenanceRouter(maintenance: MaintenanceService) {
  return router({
    list: operatorProcedure.query(() => maintenance.list()),
    canManage: operatorProcedure.query(({ ctx }) => maintenance.canManage(ctx.user)),
    active: operatorProcedure.input(MaintenanceActiveQuerySchema).query(({ input }) => maintenance.active(input.host)),
    byId: operatorProcedure.input(MaintenanceIdSchema).query(({ input }) => maintenance.byId(input.id)),
    create: operatorProcedure.input(MaintenanceWindowInputSchema).mutation(({ input, ctx }) => maintenance.create(input, ctx)),
    update: operatorProcedure.input(MaintenanceWindowUpdateSchema).mutation(({ input: { id, ...rest }, ctx }) => maintenance.update(id, rest, ctx)),
    end: operatorProcedure.input(MaintenanceIdSchema).mutation(({ input, ctx }) => maintenance.end(input.id, ctx)),
  });
}
