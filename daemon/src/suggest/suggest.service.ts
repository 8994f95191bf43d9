import type { z } from 'zod';
import type { SuggestAnswer, SuggestQuerySchema } from '../../../shared/src/index.js';
import { PROBLEM_RULES } from '../correlation/index.js';
import type { CommittedEvent, Store } from '../store/index.js';
import { eventValues, rankMatches } from './suggest.rules.js';

/**
 * Values the console offers in its filters: host names from the hosts, rules from the rules a
 * problem can carry, users, addresses and types from the catalogue ingest keeps of what events
 * carried (so no answer scans events).
 */
export class SuggestService {
  constructor(private readonly store: Pick<Store, 'hosts' | 'suggestValues'>) {}

  async values(query: z.output<typeof SuggestQuerySchema>): Promise<SuggestAnswer> {
    const text = (query.prefix ?? '').trim().toLowerCase();
    const { field, limit } = query;
    if (field === 'host') return { field, values: rankMatches((await this.store.hosts.list()).map((h) => h.hostname), text, limit) };
    if (field === 'rule') return { field, values: rankMatches(PROBLEM_RULES, text, limit) };
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
