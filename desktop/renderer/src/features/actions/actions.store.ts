import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { toApiError } from '../../api/trpc';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { actionsApi, type CommandQuery } from './actions.api';

/** The queued agent commands (qwinsta, logoff) with the names of their hosts. */
export const useCommandsStore = defineStore('commands', () => {
  const state = ref<NonNullable<Exclude<CommandQuery, void>>['state'] | ''>('');
  const list = useResource(async () => (await actionsApi.commands({ limit: 200, ...(state.value ? { state: state.value } : {}) } as CommandQuery)).items);
  const hosts = useResource(async () => (await hostsApi.list('')).items);
  const names = computed(() => new Map((hosts.data.value ?? []).map((h) => [h.id, h.hostname])));
  async function filter(next: typeof state.value) {
    state.value = next;
    await list.load();
  }
  return { state, list, hosts, names, filter };
});

export type AccessKind = 'winrm' | 'ssh';
export interface AccessResult {
  ok: boolean;
  detail: string;
  duration_ms: number;
}

/** WinRM and SSH administrator access tests of the host on screen; a failed call is a failed test. */
export const useAccessTestsStore = defineStore('accessTests', () => {
  const hostId = ref<string | null>(null);
  const results = ref<Record<AccessKind, AccessResult | null>>({ winrm: null, ssh: null });
  const running = ref<AccessKind | null>(null);

  function reset(id: string) {
    hostId.value = id;
    results.value = { winrm: null, ssh: null };
    running.value = null;
  }
  async function run(kind: AccessKind): Promise<void> {
    const id = hostId.value;
    if (!id) return;
    running.value = kind;
    try {
      const result = kind === 'winrm' ? await actionsApi.winrmTest(id) : await actionsApi.sshTest(id);
      if (hostId.value === id) results.value[kind] = result;
    } catch (err) {
      if (hostId.value === id) results.value[kind] = { ok: false, detail: toApiError(err).message, duration_ms: 0 };
    } finally {
      running.value = null;
    }
  }
  return { hostId, results, running, reset, run };
});
