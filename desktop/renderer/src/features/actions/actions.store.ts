import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { actionsApi, type CommandQuery } from './actions.api';

/** The queued agent commands (qwinsta, logoff) with the names of their hosts. */
export const useCommandsStore = defineStore('commands', () => {
  const state = ref<NonNullable<CommandQuery>['state'] | ''>('');
  const list = useResource(async () => (await actionsApi.commands({ limit: 200, ...(state.value ? { state: state.value } : {}) } as CommandQuery)).items);
  const hosts = useResource(async () => (await hostsApi.list('')).items);
  const names = computed(() => new Map((hosts.data.value ?? []).map((h) => [h.id, h.hostname])));
  async function filter(next: typeof state.value) {
    state.value = next;
    await list.load();
  }
  return { state, list, hosts, names, filter };
});
