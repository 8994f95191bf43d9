import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { usersApi, type UserCreateInput, type UserPatch } from './users.api';

/** Console users (admin): the list and the changes made to it. */
export const useUsersStore = defineStore('users', () => {
  const list = useResource(usersApi.list);
  async function create(input: UserCreateInput) {
    await usersApi.create(input);
    await list.load();
  }
  async function update(id: string, patch: UserPatch) {
    await usersApi.update(id, patch);
    await list.load();
  }
  async function remove(id: string) {
    await usersApi.remove(id);
    await list.load();
  }
  async function unlock(id: string) {
    await usersApi.unlock(id);
    await list.load();
  }
  return { ...list, create, update, remove, unlock };
});
