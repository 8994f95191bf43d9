import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/helpers/clock.js';
import { openFreshStore } from '../../../test/helpers/stores.js';
import type { AuditInput } from '../audit/index.js';
import type { BusMessage } from '../bus.js';
import type { ApiKeyRecord, Store } from '../store/index.js';
import { CommandsService } from './commands.service.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 5, 3, 9, 0, 0);
const TIMING = { redeliverAfterMs: 120_000, expireAfterMs: 600_000 };
const OPERATOR = { user: { id: 'u1', username: 'olga', role: 'admin' as const }, ip: '127.0.0.1' };
const FENCE = { token: 1, check: async () => {} };
const QWINSTA = ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE\n>rdp-tcp#3         alice                     3  Active\n';

function key(id: string): ApiKeyRecord {
  return { id, prefix: `sac_${id}`, hash: 'h', label: id, bound_hostname: null, bound_instance_id: null, on_mismatch: 'refuse', created_ms: T0, last_used_ms: null, revoked_ms: null };
}

describe('CommandsService on a real SQLite store with a fake clock', () => {
  let store: Store;
  let clock: ManualClock;
  let published: BusMessage[];
  let audit: AuditInput[];
  let commands: CommandsService;

  beforeEach(async () => {
    store = await openFreshStore('sqlite');
    clock = new ManualClock(T0);
    published = [];
    audit = [];
    const bus = { publish: (m: BusMessage) => void published.push(m) };
    commands = new CommandsService(store, bus, clock, { record: async (e) => void audit.push(e) }, logger, TIMING);
  });

  afterEach(async () => {
    await store.close();
  });

  const enqueue = () => commands.enqueue({ host_id: 'h1', agent_instance_id: 'agent-1', type: 'qwinsta', params: {}, origin: 'host:h1', actor: OPERATOR });

  it('hands a command out once, again only after the delivery timed out', async () => {
    const queued = await enqueue();

    expect((await commands.poll('agent-1', key('k1'))).map((c) => c.id)).toEqual([queued.id]);
    expect(await commands.poll('agent-1', key('k1'))).toEqual([]);
    expect(await commands.poll('agent-2', key('k2'))).toEqual([]);
    clock.advance(TIMING.redeliverAfterMs);
    expect((await commands.poll('agent-1', key('k1'))).map((c) => c.id)).toEqual([queued.id]);
    expect((await commands.byId(queued.id)).deliveries).toBe(2);
  });

  it('takes one result, from the key the command was handed to, and parses a qwinsta once', async () => {
    const queued = await enqueue();
    await commands.poll('agent-1', key('k1'));
    const result = { status: 'succeeded' as const, stdout: QWINSTA, stderr: '' };

    await expect(commands.result(queued.id, { key: key('k2'), agentInstanceId: 'agent-1' }, result)).rejects.toMatchObject({ code: 'command/not_found' });
    const done = await commands.result(queued.id, { key: key('k1'), agentInstanceId: 'agent-1' }, result);
    expect(done.state).toBe('succeeded');
    expect(done.sessions?.map((s) => s.id)).toEqual([3]);
    await expect(commands.result(queued.id, { key: key('k1'), agentInstanceId: 'agent-1' }, result)).rejects.toMatchObject({ code: 'command/already_finished' });
    expect(audit.map((a) => a.action)).toEqual(['command.queued', 'command.delivered', 'command.succeeded']);
    expect(published.map((m) => m.type === 'command.updated' && m.data.state)).toEqual(['queued', 'delivered', 'succeeded']);
  });

  it('expires a command left without result, and hands it out no more', async () => {
    const queued = await enqueue();
    clock.advance(TIMING.expireAfterMs - 1);
    await commands.expireDue(FENCE);
    expect((await commands.byId(queued.id)).state).toBe('queued');

    clock.advance(1);
    await commands.expireDue(FENCE);
    expect((await commands.byId(queued.id)).state).toBe('expired');
    expect(await commands.poll('agent-1', key('k1'))).toEqual([]);
    expect(audit.at(-1)).toMatchObject({ action: 'command.expired', outcome: 'failed' });
  });
});
