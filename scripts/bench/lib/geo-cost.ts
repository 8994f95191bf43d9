import pino from 'pino';
import type { EventInput } from '../../../shared/src/index.js';
import { GeoService, shippedGeoDatabases } from '../../../daemon/src/geo/index.js';
import type { NewEvent } from '../../../daemon/src/store/index.js';
import { createEventFactory } from './event-factory.js';

/** What the source-address enrichment costs, measured in this process with the shipped databases. */
export interface EnrichmentCost {
  /** Reading the shipped ASN table (on its worker thread) and this process's RSS growth once it is held. */
  asnLoadMs: number;
  asnRssMiB: number;
  /** Per event of the load generator's mix (a few addresses: answered from the cache). */
  mixUs: number;
  /** Per event whose address was never seen (every lookup misses the cache: a wide brute force). */
  missUs: number;
}

const EVENTS = 200_000;

function perEvent(items: NewEvent[], geo: GeoService): number {
  const started = performance.now();
  for (let i = 0; i < items.length; i += 256) geo.enrich(items.slice(i, i + 256));
  return ((performance.now() - started) * 1000) / items.length;
}

/** Items as ingest hands them to the committer: only `event` is read by the enrichment. */
function items(events: EventInput[]): NewEvent[] {
  return events.map((event) => ({ event }) as NewEvent);
}

export async function measureEnrichment(): Promise<EnrichmentCost> {
  const geo = new GeoService({ settings: async () => ({ enabled: true, country_db_path: null, asn_db_path: null }), shipped: shippedGeoDatabases(), logger: pino({ level: 'silent' }) });
  await geo.reload();
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  // The first public address starts the shipped ASN table's reading.
  geo.lookup('8.8.8.8');
  while (geo.status().asn.problem !== null) await new Promise((resolve) => setTimeout(resolve, 20));
  const asnLoadMs = performance.now() - started;
  global.gc?.();
  const asnRssMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;

  const factory = createEventFactory();
  const mix = items(Array.from({ length: EVENTS }, () => JSON.parse(factory.next().body) as EventInput));
  perEvent(mix.slice(0, 10_000), geo);
  const mixUs = perEvent(mix, geo);
  // Distinct public addresses spread over the IPv4 space (a few land in special ranges: labelled only).
  const wide = items(
    Array.from({ length: EVENTS }, (_, n) => {
      const a = (Math.imul(n + 1, 2_654_435_761) >>> 0) % 0xdfffffff;
      const ip = [a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255].join('.');
      return { details: { ip_address: ip } } as unknown as EventInput;
    }),
  );
  const missUs = perEvent(wide, geo);
  return { asnLoadMs, asnRssMiB, mixUs, missUs };
}
