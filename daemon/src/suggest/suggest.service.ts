import type { z } from 'zod';
import type { SuggestAnswer, SuggestQuerySchema } from '../../../shared/src/index.js';
import { PROBLEM_RULES } from '../correlation/index.js';
import type { CommittedEvent, Store } from '../store/index.js';
import { eventValues, rankMatches } from './suggest.rules.js';

/**
 * Values the console offers in its filters: host names from the hosts, rules from the rules a
 * problem can carry, users, addresses and types from the catalogue ingest keeps of what events
 * carried (so no answer scans events). A caller limited to host groups gets the names of their
 * hosts, rules and types (no host data), and no users or addresses: the catalogue does not say
 * which host a user or an address was seen on.
 */
export class SuggestService {
  constructor(private readonly store: Pick<Store, 'hosts' | 'suggestValues'>) {}

  /** `within`: the host ids a caller limited to host groups may see (null: every host). */
  async values(query: z.output<typeof SuggestQuerySchema>, within: ReadonlySet<string> | null = null): Promise<SuggestAnswer> {
    const text = (query.prefix ?? '').trim().toLowerCase();
    const { field, limit } = query;
    if (field === 'host') {
      const hosts = (await this.store.hosts.list()).filter((h) => !within || within.has(h.id));
      return { field, values: rankMatches(hosts.map((h) => h.hostname), text, limit) };
    }
    if (field === 'rule') return { field, values: rankMatches(PROBLEM_RULES, text, limit) };
    if (within && field !== 'type') return { field, values: [] };
    return { field, values: await this.store.suggestValues.match(field, text, limit) };
  }
}

/** Most values a recorder remembers as written before it starts over (a bound on its memory). */
const REMEMBERED_MAX = 50_000;

/**
 * Records the values of committed batches in the catalogue, each value once per process: what this
 * process already wrote is not written again (another daemon's or an earlier run's copy is skipped
 * by the store).
 */
export function catalogueRecorder(store: Pick<Store, 'suggestValues'>): (batch: readonly CommittedEvent[]) => Promise<void> {
  const written = new Set<string>();
  return async (batch) => {
    const fresh = eventValues(batch).filter((v) => !written.has(`${v.field}\n${v.value}`));
    if (fresh.length === 0) return;
    await store.suggestValues.record(fresh);
    if (written.size + fresh.length > REMEMBERED_MAX) written.clear();
    for (const v of fresh) written.add(`${v.field}\n${v.value}`);
  };
}
