import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { critical, deliveries, MIN, problemOf, useAlertingSac } from '../helpers/alerting.js';
import { api } from '../helpers/auth.js';
import { waitFor, type TestClock } from '../helpers/clock.js';
import type { TestSac } from '../helpers/daemon.js';
import { aFullJobRun } from '../helpers/jobs.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { TelegramPeer } from '../peers/telegram.peer.js';

describe.each(STORE_KINDS)('escalation of unacknowledged problems on %s', (kind) => {
  let t: TestSac;
  let tg: TelegramPeer;
  let token: string;
  let clock: TestClock;
  useAlertingSac(kind, (a) => ({ t, tg, token, clock } = a));

  it('re-notifies an unacknowledged critical problem on schedule and stops at acknowledge', async () => {
    const host = `esc-${randomUUID().slice(0, 6)}`;
    const set = await api(t, 'PATCH', '/api/v1/settings/escalation', {
      token,
      body: { policies: { critical: { interval_minutes: 15, max_repeats: 3 } } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await critical(t, host);
    const problem = await problemOf(t, token, host);
    await waitFor('problem opened notice', async () => (await deliveries(t, token, problem.id)).some((r) => r.topic === 'problem.opened' && r.status === 'sent'));
    const opened = tg.calls.find((c) => c.text.includes('Problem opened') && c.text.includes(host));
    expect(opened?.reply_markup?.inline_keyboard[0]).toEqual([
      { text: 'Acknowledge', callback_data: `ack:${problem.id}` },
      { text: 'Resolve', callback_data: `res:${problem.id}` },
      { text: 'Open in console', url: `http://sac.example.test:8080/problems/${problem.id}` },
    ]);

    clock.advance(14 * MIN);
    await aFullJobRun('escalation', { url: t.url, token });
    expect((await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated')).toEqual([]);
    clock.advance(MIN);
    const step1 = await waitFor('escalation step 1 sent', async () => {
      const rows = (await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated');
      return rows.length === 1 && rows[0]!.status === 'sent' ? rows : null;
    });
    expect(step1[0]!.content).toMatchObject({ kind: 'problem', action: 'escalated', step: 1, final: false });
    expect(tg.calls.some((c) => c.text.includes('Still open, reminder 1') && c.text.includes(host))).toBe(true);

    clock.advance(15 * MIN);
    await waitFor('escalation step 2', async () => (await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated').length === 2);

    const ack = await api(t, 'POST', `/api/v1/problems/${problem.id}/acknowledge`, { token, body: {} });
    expect(ack.status).toBe(200);
    clock.advance(30 * MIN);
    await aFullJobRun('escalation', { url: t.url, token });
    expect((await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated')).toHaveLength(2);
    await api(t, 'PATCH', '/api/v1/settings/escalation', { token, body: { policies: {} } });
  }, 90_000);

  it('a policy naming a host group escalates only problems of its hosts', async () => {
    const suffix = randomUUID().slice(0, 6);
    const [member, outside] = [`eg-${suffix}-1`, `eo-${suffix}`];
    const group = await api(t, 'POST', '/api/v1/groups', { token, body: { name: `On call ${suffix}`, rules: { host_patterns: [`eg-${suffix}-*`] } } });
    expect(group.status).toBe(201);
    const set = await api(t, 'PATCH', '/api/v1/settings/escalation', {
      token,
      body: { policies: { critical: { interval_minutes: 15, max_repeats: 1, group_ids: [group.body.id] } } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await critical(t, member);
    await critical(t, outside);
    const [inGroup, notInGroup] = [await problemOf(t, token, member), await problemOf(t, token, outside)];
    const escalated = async (id: string) => (await deliveries(t, token, id)).filter((r) => r.topic === 'problem.escalated');
    clock.advance(15 * MIN);
    await waitFor('the member’s problem escalated', async () => (await escalated(inGroup.id)).length === 1);
    await aFullJobRun('escalation', { url: t.url, token });
    expect(await escalated(notInGroup.id)).toEqual([]);
    await api(t, 'PATCH', '/api/v1/settings/escalation', { token, body: { policies: {} } });
  }, 90_000);
});
