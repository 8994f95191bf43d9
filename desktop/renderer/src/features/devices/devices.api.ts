import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type DeviceRow = RouterOutputs['mobile']['devices'][number];
export type CodeRow = RouterOutputs['mobile']['codes'][number];
export type IssuedCode = RouterOutputs['mobile']['issueCode'];
export type IssueCodeInput = RouterInputs['mobile']['issueCode'];

export const devicesApi = {
  devices: () => call(() => trpc.mobile.devices.query()),
  codes: () => call(() => trpc.mobile.codes.query()),
  issueCode: (input: IssueCodeInput) => call(() => trpc.mobile.issueCode.mutate(input)),
  revokeCode: (id: string) => call(() => trpc.mobile.revokeCode.mutate({ id })),
  revoke: (id: string) => call(() => trpc.mobile.revokeDevice.mutate({ id })),
  remove: (id: string) => call(() => trpc.mobile.deleteDevice.mutate({ id })),
};
