import { z } from 'zod';
import { DevicePushSchema, EnrollmentCodeCreateSchema, EnrollRequestSchema, TokenRefreshSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { MobileService } from './mobile.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(64) });
const Device = z.looseObject({ id: z.string(), device_uuid: z.string() });
const DeviceTokens = z.looseObject({ access_token: z.string(), refresh_token: z.string() });
const Code = z.looseObject({ id: z.string() });

/**
 * Mobile clients. Admin: enrollment codes, revoke and delete devices. Any signed-in user: the
 * device list (their own unless admin). Devices themselves (REST only): enroll with a code,
 * refresh their tokens, set their own push subscription (with a device access token).
 * `POST /api/v1/mobile/enrollment-codes` stays in `mobile.routes.ts`: its answer's URL is built
 * from the request's host.
 */
export function mobileOperations(mobile: MobileService) {
  return [
    defineOperation({
      id: 'mobile.issueCode',
      summary: 'Issue an enrollment code',
      role: 'admin',
      method: 'POST',
      input: EnrollmentCodeCreateSchema,
      output: Code.extend({ enroll_path: z.string() }),
      handler: (input, caller) => mobile.issueCode(input, caller),
    }),
    defineOperation({
      id: 'mobile.codes',
      summary: 'Enrollment codes',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/mobile/enrollment-codes',
      envelope: 'codes',
      output: z.array(Code),
      handler: () => mobile.listCodes(),
    }),
    defineOperation({
      id: 'mobile.revokeCode',
      summary: 'Revoke an enrollment code',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/mobile/enrollment-codes/{id}',
      status: 204,
      input: ById,
      output: z.strictObject({ revoked: z.literal(true) }),
      handler: async (input, caller) => {
        await mobile.revokeCode(input.id, caller);
        return { revoked: true as const };
      },
    }),
    defineOperation({
      id: 'mobile.enroll',
      summary: 'Enroll a device with a code',
      role: 'public',
      method: 'POST',
      path: '/api/v1/mobile/enroll',
      trpc: false,
      input: EnrollRequestSchema,
      output: DeviceTokens,
      handler: (input, caller) => mobile.enroll(input, caller.ip),
    }),
    defineOperation({
      id: 'mobile.token',
      summary: 'Refresh a device’s tokens (a reused refresh token revokes the device)',
      role: 'public',
      method: 'POST',
      path: '/api/v1/mobile/token',
      trpc: false,
      input: TokenRefreshSchema,
      output: DeviceTokens,
      handler: (input, caller) => mobile.refresh(input, caller.ip),
    }),
    defineOperation({
      id: 'mobile.setPush',
      summary: 'Set the calling device’s push subscription (null: none)',
      role: 'operator',
      scope: 'none',
      method: 'PUT',
      path: '/api/v1/mobile/push',
      trpc: false,
      envelope: 'device',
      input: DevicePushSchema,
      output: Device,
      errors: { '409': 'Not called with a device access token' },
      handler: (input, caller) => mobile.setPush(caller.user, input.push),
    }),
    defineOperation({
      id: 'mobile.devices',
      summary: 'Devices (one’s own unless admin)',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      path: '/api/v1/devices',
      envelope: 'devices',
      output: z.array(Device),
      handler: (_input, caller) => mobile.list(caller.user),
    }),
    defineOperation({
      id: 'mobile.revokeDevice',
      summary: 'Revoke a device',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/devices/{id}/revoke',
      aliases: ['/devices/{id}/revoke'],
      envelope: 'device',
      input: ById,
      output: Device,
      handler: (input, caller) => mobile.revoke(input.id, caller),
    }),
    defineOperation({
      id: 'mobile.deleteDevice',
      summary: 'Delete a device',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/devices/{id}',
      aliases: ['/devices/{id}'],
      status: 204,
      input: ById,
      output: z.strictObject({ deleted: z.literal(true) }),
      handler: async (input, caller) => {
        await mobile.delete(input.id, caller);
        return { deleted: true as const };
      },
    }),
  ];
}
