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

test('a push notification’s Approve or Deny opens the request on the phone and decides only after confirmation', async ({ browser }) => {
  const annaToken = await sac.token(ANNA.username, ANNA.password);
  const filed = await sac.api('POST', '/api/v1/approvals', {
    token: annaToken,
    body: { request: { kind: 'host_logoff', host_id: hostId, session_id: 3 }, reason: 'kiosk session left open overnight' },
  });
  expect(filed.status).toBe(201);
  const id = filed.body.id as string;
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  const boris = new ConsolePage(page, sac.url);
  await boris.login(BORIS.username, BORIS.password);

  // Deny tapped on the notification: the page asks first; cancelling decides nothing.
  await boris.open(`/approvals/${id}?action=deny`);
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Deny “Log off session 3 on WS-APPROVE” requested by anna?');
  await boris.screenshot('approval-push-deny-confirm-phone');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const card = page.getByTestId('approval-opened');
  await expect(card).toContainText('Pending');
  await expect(page).not.toHaveURL(/action=/);
  // What the decider sees on the phone: summary, hosts, reason, requester, expiry, Approve / Deny.
  for (const text of ['Log off session 3 on WS-APPROVE', 'WS-APPROVE', 'kiosk session left open overnight', ANNA.username, 'Expires']) await expect(card).toContainText(text);
  await expect(card.getByTestId('opened-approve')).toBeVisible();
  await expect(card.getByTestId('opened-deny')).toBeVisible();
  await boris.screenshotBothThemes('approval-request-phone');

  // Approve tapped: confirmed, it runs as Boris's decision.
  await boris.open(`/approvals/${id}?action=approve`);
  await expect(dialog).toContainText('Approve and run now: Log off session 3 on WS-APPROVE (requested by anna)?');
  await boris.screenshot('approval-push-approve-confirm-phone');
  await dialog.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText(/Approved and done: logoff queued/)).toBeVisible();
  await expect(card).toContainText(`Approved by ${BORIS.username}`);
  await expect(card.getByTestId('opened-approve')).toHaveCount(0);
  expect(await agentRound('Logging off session ID 3')).toEqual([expect.objectContaining({ type: 'logoff', params: { session_id: 3 } })]);
  await boris.screenshotBothThemes('approval-decided-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  await boris.screenshotBothThemes('approval-decided');
  await page.getByTestId('language').selectOption('ru');
  await expect(card).toContainText(`Одобрил ${BORIS.username}`);
  await boris.screenshot('approval-decided-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await boris.screenshot('approval-decided-phone-ru');
});

test('the settings page edits the approval policy per host group', async ({ page }) => {
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  const group = await sac.api('POST', '/api/v1/groups', { token: admin, body: { name: 'Finance desks', host_ids: [hostId] } });
  expect(group.status).toBe(201);
  const console_ = new ConsolePage(page, sac.url);
  await console_.login();
  await console_.open('/admin/settings?category=approvals');
  const editor = page.getByTestId('approval-groups');
  await expect(editor).toContainText('No group entry');
  await page.getByTestId('approval-groups-add').click();
  await page.getByTestId('settings-save').click();
  await expect(editor).toContainText('Choose a group.');
  await editor.locator('[data-field="by_group.0.group"]').selectOption({ label: 'Finance desks (1)' });
  await editor.locator('[data-field="by_group.0.session_logoff"]').check();
  await editor.locator('[data-field="by_group.0.host_delete"]').check();
  await page.getByTestId('settings-save').click();
  await expect(page.getByText('Two-person approval saved')).toBeVisible();
  const stored = await sac.api('GET', '/api/v1/settings/approvals', { token: admin });
  expect(stored.body.values.by_group).toEqual([{ group: group.body.id, actions: ['session_logoff', 'host_delete'] }]);
  await console_.screenshotBothThemes('approvals-settings-by-group');
  await page.setViewportSize({ width: 390, height: 844 });
  await editor.scrollIntoViewIfNeeded();
  await console_.screenshotBothThemes('approvals-settings-by-group-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('language').selectOption('ru');
  await expect(editor).toContainText('Группа хостов');
  await console_.screenshot('approvals-settings-by-group-ru');

  // The group the policy names cannot be deleted; after removing its entry it can.
  expect((await sac.api('DELETE', `/api/v1/groups/${group.body.id}`, { token: admin })).status).toBe(409);
  await page.getByTestId('approval-groups-remove-0').click();
  await page.getByTestId('settings-save').click();
  await expect(editor).toContainText('Строк для групп нет');
  // The list empties as the row is removed; the save lands after it.
  await expect.poll(async () => (await sac.api('GET', '/api/v1/settings/approvals', { token: admin })).body.values.by_group).toEqual([]);
  expect((await sac.api('DELETE', `/api/v1/groups/${group.body.id}`, { token: admin })).status).toBe(204);
});
