import { defineStore } from 'pinia';
import { computed, shallowRef } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { apiKeysApi, type ApiKeyCreate, type MismatchEntry } from './apikeys.api';

/** What the guard saw for one bound key: events naming another host, refused or flagged. */
export interface KeyMismatches {
  count: number;
  /** The latest one: when, which host or installation it claimed, and whether it was refused. */
  last: { at: string; claimed: string; refused: boolean };
}

/** Per key id, from the audit entries (newest first) of the ingest guard. */
export function mismatchesByKey(entries: MismatchEntry[]): Map<string, KeyMismatches> {
  const byKey = new Map<string, KeyMismatches>();
  for (const e of entries) {
    const id = e.target?.startsWith('apikey:') ? e.target.slice('apikey:'.length) : null;
    if (!id) continue;
    const seen = byKey.get(id);
    if (seen) {
      seen.count++;
      continue;
    }
    const claimed = (e.details as { claimed?: unknown }).claimed;
    byKey.set(id, { count: 1, last: { at: e.at, claimed: typeof claimed === 'string' ? claimed : '', refused: e.outcome === 'denied' } });
  }
  return byKey;
}

/** Agent API keys (admin). `create` returns the secret, which the API shows only once. */
export const useApiKeysStore = defineStore('apiKeys', () => {
  const list = useResource(apiKeysApi.list);
  const mismatchEntries = shallowRef<MismatchEntry[]>([]);
  const mismatches = computed(() => mismatchesByKey(mismatchEntries.value));
  async function load() {
    await Promise.all([
      list.load(),
      // The list stays usable if the audit log cannot be read; the column just stays empty.
      apiKeysApi.mismatches().then(
        (entries) => (mismatchEntries.value = entries),
        () => (mismatchEntries.value = []),
      ),
    ]);
  }
  async function create(input: ApiKeyCreate): Promise<string> {
    const created = await apiKeysApi.create(input);
    await list.load();
    return created.key;
  }
  async function revoke(id: string) {
    await apiKeysApi.revoke(id);
    await list.load();
  }
  /** The hosts a new key can be bound to (by name or by agent installation). */
  const hosts = useResource(async () => (await hostsApi.list('')).items);
  return { ...list, load, mismatches, hosts, create, revoke };
});
