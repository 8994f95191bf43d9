import { describe, expect, it } from 'vitest';
import { Facts, type DomainFact } from './facts.js';

const fact: DomainFact = { type: 'host.status_changed', host_id: 'h1', hostname: 'RDS01', status: 'stale' };

describe('the facts channel', () => {
  it('hands every listener the facts and their origin, waits for listeners that answer a promise, and survives failing ones', async () => {
    const failures: [string, string][] = [];
    const facts = new Facts((err, type) => failures.push([(err as Error).message, type]));
    const got: string[] = [];
    let slowDone = false;
    facts.subscribe(() => {
      throw new Error('sync failure');
    });
    facts.subscribe(async () => {
      await new Promise((r) => setImmediate(r));
      slowDone = true;
    });
    facts.subscribe(() => Promise.reject(new Error('async failure')));
    const unsubscribe = facts.subscribe((batch, origin) => void got.push(`${batch[0].type}:${origin}`));
    await facts.publish([fact], 'service');
    expect(slowDone).toBe(true);
    expect(got).toEqual(['host.status_changed:service']);
    expect(failures).toEqual([
      ['sync failure', 'host.status_changed'],
      ['async failure', 'host.status_changed'],
    ]);
    unsubscribe();
    await facts.publish([], 'ingest');
    await facts.publish([fact], 'ingest');
    expect(got).toEqual(['host.status_changed:service']);
  });
});
