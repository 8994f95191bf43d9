import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, AGENT_KEY, startE2eSac, type E2eSac } from './support/sac.js';

const ANNA = { username: 'anna', password: 'Quiet-lantern-river-77' };
const BORIS = { username: 'boris', password: 'Amber-harbour-cliff-42' };
const AGENT = 'agent-ws-approve';
const QWINSTA = [' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE', '>rdp-tcp#5         kpetrov                   2  Active', ''].join('\r\n');

let sac: E2eSac;
let hostId = '';

/** Plays the Windows agent: one poll, then a result for each command it got; the commands. */
async function agentRound(stdout: string) {
  const res = await fetch(`${sac.url}/api/v1/agent/commands?agent_instance_id=${AGENT}`, { headers: { Authorization: `Bearer ${AGENT_KEY}` } });
  const { commands } = (await res.json()) as { commands: { id: string; type: string; params: Record<string, unknown> }[] };
  for (const c of commands) {
    await fetch(`${sac.url}/api/v1/agent/commands/${c.id}/result`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${AGENT_KEY}` },
      body: JSON.stringify({ status: 'completed', stdout, stderr: '' }),
    });
  }
  return commands;
}

test.beforeAll(async () => {
  sac = await startE2eSac();
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  for (const u of [ANNA, BORIS]) expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { ...u, role: 'monitor' } })).status).toBe(201);
  expect((await sac.api('PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff'] } })).status).toBe(200);
  // No WinRM administrator: the host's commands go to its agent.
  const ev = await sac.ingest({ host: { hostname: 'WS-APPROVE', os_family: 'windows', display_name: 'WS-APPROVE' }, source: { agent_instance_id: AGENT } });
  hostId = (await sac.api('GET', `/api/v1/events/${ev.event_id}`, { token: admin })).body.host_id as string;
});
test.afterAll(async () => {
  await sac?.close();
});

test('a logoff under the approval policy becomes a request that a second person approves', async ({ browser }) => {
  const annaPage = await (await browser.newContext()).newPage();
  const anna = new ConsolePage(annaPage, sac.url);
  await anna.login(ANNA.username, ANNA.password);
  await anna.open(`/hosts/${hostId}`);
  const panel = annaPage.getByTestId('sessions-panel');
  await panel.getByTestId('sessions-refresh').click();
  await expect(panel.getByTestId('sessions-waiting')).toBeVisible();
  await agentRound(QWINSTA);
  await expect(panel.locator('tr[data-session="2"]')).toContainText('kpetrov');

  await panel.getByTestId('logoff-2').click();
  await annaPage.getByRole('dialog').getByRole('button', { name: 'Log off' }).click();
  const ask = annaPage.getByRole('dialog', { name: 'Approval needed' });
  await expect(ask.getByTestId('approval-needed')).toContainText('Logging this session off needs a second person’s approval');
  await ask.getByTestId('approval-reason').fill('kpetrov left the company today');
  await anna.screenshot('approval-request');
  await ask.getByRole('button', { name: 'Request approval' }).click();
  await expect(annaPage.getByText('Request sent: another person must approve it')).toBeVisible();
  expect(await agentRound('')).toEqual([]);
  await anna.open('/approvals');
  const own = annaPage.getByTestId('approvals-table').locator('tbody tr[data-approval]');
  await expect(own).toHaveCount(1);
  await expect(own.first()).toContainText('your request');
  await expect(own.first().getByTestId('approve')).toHaveCount(0);

  const borisPage = await (await browser.newContext()).newPage();
  const boris = new ConsolePage(borisPage, sac.url);
  await boris.login(BORIS.username, BORIS.password);
  await expect(borisPage.getByTestId('approvals-count')).toHaveText('1');
  await boris.open('/approvals');
  const row = borisPage.getByTestId('approvals-table').locator('tbody tr[data-approval]').first();
  await expect(row).toContainText('Log off session 2 on WS-APPROVE');
  await expect(row).toContainText('kpetrov left the company today');
  await boris.screenshotBothThemes('approvals-pending');
  await borisPage.setViewportSize({ width: 390, height: 844 });
  await boris.screenshot('approvals-pending-phone');
  await borisPage.setViewportSize({ width: 1440, height: 900 });
  await row.getByTestId('approve').click();
  await borisPage.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
  await expect(borisPage.getByText(/Approved and done: logoff queued/)).toBeVisible();
  // The pending list empties; all requests show the decision and what it did.
  await expect(borisPage.getByTestId('approvals-table').locator('tbody tr[data-approval]')).toHaveCount(0);
  await borisPage.getByTestId('approvals-state').selectOption('all');
  await expect(row).toContainText(`Approved by ${BORIS.username}`);
  await expect(row).toContainText('logoff queued');
  await expect(borisPage.getByTestId('approvals-count')).toHaveCount(0);
  expect(await agentRound('Logging off session ID 2')).toEqual([expect.objectContaining({ type: 'logoff', params: { session_id: 2 } })]);

  await borisPage.getByTestId('language').selectOption('ru');
  await expect(row).toContainText(`Одобрил ${BORIS.username}`);
  await boris.screenshot('approvals-decided-ru');
});
