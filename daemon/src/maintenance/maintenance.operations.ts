import { z } from 'zod';
import { MaintenanceActiveQuerySchema, MaintenanceIdSchema, MaintenanceWindowInputSchema, MaintenanceWindowUpdateSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { MaintenanceService } from './maintenance.service.js';

const Window = z.looseObject({ id: z.string(), active: z.boolean() });
const NOT_MANAGER = { '403': 'Not a maintenance manager (the `maintenance.managers` setting)' };
const CHANGE = { ...NOT_MANAGER, '409': 'The window has already ended' };

/**
 * Maintenance windows (silences): signed-in users read; admins — or monitors when the
 * `maintenance.managers` setting allows, checked by the service — create, change and end them.
 */
export function maintenanceOperations(maintenance: MaintenanceService) {
  return [
    defineOperation({
      id: 'maintenance.list',
      summary: 'Maintenance windows',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/maintenance-windows',
      envelope: 'windows',
      output: z.array(Window),
      handler: () => maintenance.list(),
    }),
    defineOperation({
      id: 'maintenance.canManage',
      summary: 'Whether the caller may change maintenance windows',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      output: z.boolean(),
      handler: (_input, caller) => maintenance.canManage(caller.user),
    }),
    defineOperation({
      id: 'maintenance.active',
      summary: 'Windows active now, for one host or all',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/maintenance-windows/active',
      envelope: 'windows',
      input: MaintenanceActiveQuerySchema,
      output: z.array(Window),
      handler: (input) => maintenance.active(input.host),
    }),
    defineOperation({
      id: 'maintenance.byId',
      summary: 'One maintenance window',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/maintenance-windows/{id}',
      input: MaintenanceIdSchema,
      output: Window,
      handler: (input) => maintenance.byId(input.id),
    }),
    defineOperation({
      id: 'maintenance.create',
      summary: 'Create a maintenance window',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/maintenance-windows',
      status: 201,
      input: MaintenanceWindowInputSchema,
      output: Window,
      errors: NOT_MANAGER,
      handler: (input, caller) => maintenance.create(input, caller),
    }),
    defineOperation({
      id: 'maintenance.update',
      summary: 'Change a maintenance window',
      role: 'operator',
      method: 'PUT',
      path: '/api/v1/maintenance-windows/{id}',
      input: MaintenanceWindowUpdateSchema,
      output: Window,
      errors: CHANGE,
      handler: ({ id, ...rest }, caller) => maintenance.update(id, rest, caller),
    }),
    defineOperation({
      id: 'maintenance.end',
      summary: 'End a maintenance window now',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/maintenance-windows/{id}/end',
      input: MaintenanceIdSchema,
      output: Window,
      errors: CHANGE,
      handler: (input, caller) => maintenance.end(input.id, caller),
    }),
  ];
}
