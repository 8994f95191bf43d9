import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { rolloutsApi, type AgentPinSetInput, type Rollout, type RolloutStartInput } from './rollouts.api';

/** Rollouts: the list, the one open (its rings), the version pins, the hosts of groups, and the changes that reload them. */
export const useRolloutsStore = defineStore('rollouts', () => {
  const list = useResource(() => rolloutsApi.list());
  const openId = ref<string | null>(null);
  const detail = useResource(() => rolloutsApi.byId(openId.value!));
  const pins = useResource(() => rolloutsApi.pins());

  async function open(id: string | null) {
    if (openId.value !== id) detail.data.value = null;
    openId.value = id;
    if (id) await detail.load();
  }
  /** Reloads what a `rollout.changed` message (or an action) may have changed. */
  function reload() {
    void list.load();
    if (openId.value) void detail.load();
  }
  const after = async (work: Promise<Rollout>): Promise<Rollout> => {
    const rollout = await work;
    if (rollout.id === openId.value) detail.data.value = rollout;
    void list.load();
    return rollout;
  };
  const afterPins = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    await pins.load();
    return result;
  };
  /** The ids of the hosts in any of the groups (the start dialog's candidates). */
  async function groupMembers(groupIds: readonly string[]): Promise<Set<string>> {
    const lists = await Promise.all(groupIds.map((g) => hostsApi.list('', undefined, undefined, g)));
    return new Set(lists.flatMap((l) => l.items.map((h) => h.id)));
  }
  return {
    list,
    openId,
    detail,
    pins,
    open,
    reload,
    groupMembers,
    start: (input: RolloutStartInput) => after(rolloutsApi.start(input)),
    pause: (id: string) => after(rolloutsApi.pause(id)),
    resume: (id: string) => after(rolloutsApi.resume(id)),
    abort: (id: string) => after(rolloutsApi.abort(id)),
    rollbackHost: (id: string, hostId: string) => after(rolloutsApi.rollbackHost(id, hostId)),
    rollbackRing: (id: string, index: number) => after(rolloutsApi.rollbackRing(id, index)),
    setPin: (input: AgentPinSetInput) => afterPins(rolloutsApi.setPin(input)),
    removePin: (id: string) => afterPins(rolloutsApi.removePin(id)),
  };
});
