import { parseEvent } from '../../shared/src/index.js';
import { hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { Host, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from './events.js';

/**
 * A host as its agent's first event registers it (the store's own insert, no pipeline around it),
 * observed connecting from `observedIp` when given.
 */
export async function seedHost(store: Pick<Store, 'events' | 'hosts'>, overrides: Parameters<typeof buildEvent>[0], atMs: number, observedIp?: string): Promise<Host> {
  const parsed = parseEvent(buildEvent(overrides));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const event = parsed.event;
  const [outcome] = await store.events.insertBatch([
    { event, host: hostObservation(event, atMs, observedIp), occurred_ms: Date.parse(event.occurred_at), received_ms: atMs, actor_user: null, agent_version: event.source.product_version },
  ]);
  if (outcome.status !== 'inserted') throw new Error(`event not inserted: ${outcome.status}`);
  const host = await store.hosts.byId(outcome.host_id);
  if (!host) throw new Error('host not registered');
  return host;
}
