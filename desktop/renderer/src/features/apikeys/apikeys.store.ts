import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { apiKeysApi } from './apikeys.api';

/** Agent API keys (admin). `create` returns the secret, which the API shows only once. */
export const useApiKeysStore = defineStore('apiKeys', () => {
  const list = useResource(apiKeysApi.list);
  async function create(label: string): Promise<string> {
    const created = await apiKeysApi.create(label);
    await list.load();
    return created.key;
  }
  async function revoke(id: string) {
    await apiKeysApi.revoke(id);
    await list.load();
  }
  return { ...list, create, revoke };
});
