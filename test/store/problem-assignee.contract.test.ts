import { afterEach, describe, expect, it } from 'vitest';
import { problemFingerprint } from '../../daemon/src/correlation/correlation.rules.js';
import type { Problem, ProblemMatchInput, ProblemQuery, Store } from '../../daemon/src/store/index.js';
import { PROBLEM_SORT_KEYS, SEVERITIES, type Severity } from '../../shared/src/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00Z');
const MIN = 60_000;
const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';

let seq = 0;
/** A new problem of its own key (host `h<i>`), spans and counts differing per problem. */
function problemInput(i: number, severity: Severity, count: number, hostname: string): ProblemMatchInput {
  const key = `host-${i}|rdp.login.failed|severity`;
  const first = T0 + i * 7 * MIN;
  return {
    key,
    fingerprint: problemFingerprint(key),
    rule: 'severity',
    type: 'rdp.login.failed',
    host_id: `host-${i}`,
    hostname,
    title: `Problem ${i}`,
    severity,
    window_ms: 60 * MIN,
    first_ms: first,
    last_ms: first + ((i * 13) % 5) * MIN,
    count,
    now_ms: T0,
    links: [{ event_id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`, occurred_ms: first, counted: true }],
  };
}

async function seed(s: Store, n: number): Promise<Problem[]> {
  const out: Problem[] = [];
  for (let i = 0; i < n; i++) {
    // Repeated severities, counts and hostnames: ties are broken by id, and pages must not skip or repeat them.
    const r = await s.problems.upsertMatch(problemInput(i, SEVERITIES[i % 4], 1 + (i % 3), ['rds01', 'web02', 'db03'][i % 3]));
    out.push(r.problem!);
  }
  return out;
}

const SORT_VALUE: Record<(typeof PROBLEM_SORT_KEYS)[number], (p: Problem) => number | string> = {
  last_seen: (p) => p.last_seen_ms,
  first_seen: (p) => p.first_seen_ms,
  severity: (p) => SEVERITIES.indexOf(p.severity),
  count: (p) => p.count,
  hostname: (p) => p.hostname,
};

describe.each(STORE_KINDS)('problem assignee, reopen and sorted lists: %s', (kind) => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('assigns, reassigns and unassigns with a compare-and-set on the assignee seen', async () => {
    store = await openFreshStore(kind);
    const [p] = await seed(store, 1);
    expect(p).toMatchObject({ assignee_id: null, assignee: null, assigned_ms: null });
    // Two operators take the same unassigned problem at once: exactly one of them gets it.
    const both = await Promise.all([
      store.problems.assign(p.id, { assignee_id: ALICE, assignee: 'alice', expected_id: null, now_ms: T0 + 1 }),
      store.problems.assign(p.id, { assignee_id: BOB, assignee: 'bob', expected_id: null, now_ms: T0 + 1 }),
    ]);
    const winners = both.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const holder = winners[0]!;
    expect(holder.assigned_ms).toBe(T0 + 1);
    expect((await store.problems.byId(p.id))?.assignee_id).toBe(holder.assignee_id);
    // A stale expectation is refused; the right one applies; no guard applies unconditionally.
    const other = holder.assignee_id === ALICE ? BOB : ALICE;
    expect(await store.problems.assign(p.id, { assignee_id: other, assignee: 'x', expected_id: null, now_ms: T0 + 2 })).toBeNull();
    const moved = await store.problems.assign(p.id, { assignee_id: other, assignee: 'other', expected_id: holder.assignee_id, now_ms: T0 + 3 });
    expect(moved).toMatchObject({ assignee_id: other, assignee: 'other', assigned_ms: T0 + 3 });
    const cleared = await store.problems.assign(p.id, { assignee_id: null, assignee: null, expected_id: undefined, now_ms: T0 + 4 });
    expect(cleared).toMatchObject({ assignee_id: null, assignee: null, assigned_ms: null });
    expect(await store.problems.assign('no-such-problem', { assignee_id: ALICE, assignee: 'alice', expected_id: undefined, now_ms: T0 })).toBeNull();
  });

  it('filters the list by assignee and by unassigned', async () => {
    store = await openFreshStore(kind);
    const ps = await seed(store, 4);
    await store.problems.assign(ps[0].id, { assignee_id: ALICE, assignee: 'alice', expected_id: null, now_ms: T0 });
    await store.problems.assign(ps[2].id, { assignee_id: ALICE, assignee: 'alice', expected_id: null, now_ms: T0 });
    await store.problems.assign(ps[3].id, { assignee_id: BOB, assignee: 'bob', expected_id: null, now_ms: T0 });
    const ids = async (q: Partial<ProblemQuery>) => (await store!.problems.list({ hidden: [], limit: 50, ...q })).map((p) => p.id).sort();
    expect(await ids({ assignee_id: ALICE })).toEqual([ps[0].id, ps[2].id].sort());
    expect(await ids({ assignee_id: BOB })).toEqual([ps[3].id]);
    expect(await ids({ assignee_id: null })).toEqual([ps[1].id]);
    expect(await ids({})).toHaveLength(4);
  });

  it('reopens only a resolved problem, clearing its acknowledgement and resolution', async () => {
    store = await openFreshStore(kind);
    const [p] = await seed(store, 1);
    expect(await store.problems.transition(p.id, ['resolved'], { status: 'open', now_ms: T0, reopen: true })).toBeNull();
    await store.problems.transition(p.id, ['open'], { status: 'acknowledged', now_ms: T0 + 1, acknowledged_by: 'alice' });
    await store.problems.transition(p.id, ['open', 'acknowledged'], { status: 'resolved', now_ms: T0 + 2, resolved_by: 'manual', resolved_by_user: 'alice' });
    const comment = { at_ms: T0 + 3, by: 'bob', action: 'reopen' as const, text: 'came back' };
    // Two reopens race: one applies.
    const both = await Promise.all([
      store.problems.transition(p.id, ['resolved'], { status: 'open', now_ms: T0 + 3, reopen: true, comment }),
      store.problems.transition(p.id, ['resolved'], { status: 'open', now_ms: T0 + 3, reopen: true, comment }),
    ]);
    expect(both.filter((r) => r !== null)).toHaveLength(1);
    expect(await store.problems.byId(p.id)).toMatchObject({
      status: 'open',
      acknowledged_by: null,
      acknowledged_ms: null,
      resolved_by: null,
      resolved_by_user: null,
      resolved_ms: null,
      comments: [comment],
    });
    // Open again: it takes matching events again, as any open problem does.
    const joined = await store.problems.upsertMatch({ ...problemInput(0, 'info', 1, 'rds01'), first_ms: p.last_seen_ms + MIN, last_ms: p.last_seen_ms + MIN });
    expect(joined).toMatchObject({ created: false, problem: { id: p.id } });
  });

  it.each(PROBLEM_SORT_KEYS.flatMap((k) => (['asc', 'desc'] as const).map((d) => [k, d] as const)))(
    'sorts by %s %s with id as tie-break, pages by keyset without gaps or repeats',
    async (sort, dir) => {
      store = await openFreshStore(kind);
      const all = await seed(store, 11);
      const value = SORT_VALUE[sort];
      const sign = dir === 'asc' ? 1 : -1;
      const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);
      const expected = [...all].sort((a, b) => sign * (cmp(value(a), value(b)) || cmp(a.id, b.id))).map((p) => p.id);
      const seen: string[] = [];
      let after: ProblemQuery['after'];
      for (let page = 0; page < 10; page++) {
        const rows = await store.problems.list({ hidden: [], limit: 4, sort, dir, after });
        seen.push(...rows.map((r) => r.id));
        if (rows.length < 4) break;
        const last = rows.at(-1)!;
        after = { value: value(last), id: last.id };
      }
      expect(seen).toEqual(expected);
    },
  );
});
