import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { usersApi } from '../users/users.api';
import { devicesApi, type IssuedCode } from './devices.api';

/** Enrolled phones and pending enrollment codes (admin), with the users a code can be issued to. */
export const useDevicesStore = defineStore('devices', () => {
  const list = useResource(async () => {
    const [devices, codes, users] = await Promise.all([devicesApi.devices(), devicesApi.codes(), usersApi.list()]);
    return { devices, codes, users };
  });
  async function issueCode(input: { user_id: string; ttl_minutes: number }): Promise<IssuedCode> {
    const code = await devicesApi.issueCode(input);
    await list.load();
    return code;
  }
  async function revoke(id: string) {
    await devicesApi.revoke(id);
    await list.load();
  }
  async function remove(id: string) {
    await devicesApi.remove(id);
    await list.load();
  }
  async function revokeCode(id: string) {
    await devicesApi.revokeCode(id);
    await list.load();
  }
  return { list, issueCode, revoke, remove, revokeCode };
});
