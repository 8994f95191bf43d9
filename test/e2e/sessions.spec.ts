import { expect, test } from '@playwright/test';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, AGENT_KEY, startE2eSac, type E2eSac } from './support/sac.js';

const MONITOR = { username: 'duty', password: 'Quiet-evening-shift-2026' };
const WIN_ADMIN = { user: 'CORP\\admin', password: 'Adm1n-pass' };
const AGENT = 'agent-ws-remote';
const QWINSTA = [
  ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE',
  ' services                                    0  Disc',
  '>rdp-tcp#5         kpetrov                   2  Active',
  ' console           operator                  1  Conn',
  '',
].join('\r\n');

let sac: E2eSac;
let peer: WinRmPeer;
const hostIds: Record<string, string> = {};

async function hostId(token: string, eventId: string): Promise<string> {
  return (await sac.api('GET', `/api/v1/events/${eventId}`, { token })).body.host_id as string;
}

/** Plays the Windows agent: one poll, then a result for each command it got. */
async function agentRound(result: (c: { type: string; params: Record<string, unknown> }) => { status: string; stdout: string; stderr: string }) {
  const res = await fetch(`${sac.url}/api/v1/agent/commands?agent_instance_id=${AGENT}`, { headers: { Authorization: `Bearer ${AGENT_KEY}` } });
  const { commands } = (await res.json()) as { commands: { id: string; type: string; params: Record<string, unknown>; run_as: null }[] };
  for (const c of commands) {
    const posted = await fetch(`${sac.url}/api/v1/agent/commands/${c.id}/result`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${AGENT_KEY}` },
      body: JSON.stringify(result(c)),
    });
    expect(posted.status).toBe(200);
  }
  return commands;
}

test.beforeAll(async () => {
  peer = await startWinRmPeer({ user: WIN_ADMIN.user, password: WIN_ADMIN.password });
  sac = await startE2eSac();
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { ...MONITOR, role: 'monitor' } })).status).toBe(201);
  const settings = { username: WIN_ADMIN.user, password: WIN_ADMIN.password, transport: 'http', port: peer.port, codepage: 'cp437' };
  expect((await sac.api('PATCH', '/api/v1/settings/windows_admin', { token: admin, body: settings })).status).toBe(200);
  // Reachable over WinRM (its name does not resolve here, its address is the stand-in's).
  const lab = await sac.ingest({ host: { hostname: 'WS-LAB', os_family: 'windows', ipv4: '127.0.0.1', display_name: 'WS-LAB (127.0.0.1)' } });
  hostIds.lab = await hostId(admin, lab.event_id);
  // Not reachable over WinRM (nothing listens on 127.0.0.2): its commands go to its agent.
  const remote = await sac.ingest({ host: { hostname: 'WS-REMOTE', os_family: 'windows', display_name: 'WS-REMOTE', ipv4: '127.0.0.2' }, source: { agent_instance_id: AGENT } });
  hostIds.remote = await hostId(admin, remote.event_id);
  // Every agent here posts from loopback, which identifies none of them: an admin pins both hosts.
  for (const [id, address] of [[hostIds.lab, '127.0.0.1'], [hostIds.remote, '127.0.0.2']]) {
    expect((await sac.api('PUT', `/api/v1/hosts/${id}/action-address`, { token: admin, body: { address } })).status).toBe(200);
  }
  // An RD Gateway connection whose target is WS-LAB: its session actions run on WS-LAB over WinRM.
  await sac.ingest({
    type: 'rdg.connection.success',
    category: 'network',
    severity: 'info',
    title: 'RD Gateway: CORP\\mnovak → ws-lab',
    host: { hostname: 'RDG01', os_family: 'windows', ipv4: '127.0.0.3' },
    details: { user: 'CORP\\mnovak', external_ip: '203.0.113.7', internal_ip: 'ws-lab', protocol: 'HTTP', event_id_windows: 302, generated_by: 'agent' },
  });
});
test.afterAll(async () => {
  await sac?.close();
  await peer?.stop();
});

test('a monitor lists the sessions of a host over WinRM and logs one off after confirming', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login(MONITOR.username, MONITOR.password);
  await app.open(`/hosts/${hostIds.lab}`);
  const panel = page.getByTestId('sessions-panel');
  await panel.getByTestId('sessions-refresh').click();
  await expect(panel.getByTestId('sessions-path')).toContainText('via WinRM');
  await expect(panel.locator('tr[data-session="2"]')).toContainText('jdoe');
  await panel.getByTestId('sessions-raw').locator('summary').click();
  await expect(panel.getByTestId('sessions-raw')).toContainText('SESSIONNAME');
  await app.screenshotBothThemes('sessions-winrm');

  await panel.getByTestId('logoff-2').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Log off jdoe (session 2) on WS-LAB?');
  await app.screenshot('sessions-logoff-confirm');
  await dialog.getByRole('button', { name: 'Log off' }).click();
  await expect(page.getByText('jdoe (session 2) logged off')).toBeVisible();
  await expect(panel.locator('tr[data-session="2"]')).toHaveCount(0);
  await expect(panel.locator('tr[data-session="3"]')).toBeVisible();

  await page.getByTestId('winrm-test').click();
  await expect(page.getByTestId('winrm-result')).toContainText('WinRM · works');
});

test('through the agent the panel waits and fills in the result from the stream', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login(MONITOR.username, MONITOR.password);
  await app.open(`/hosts/${hostIds.remote}`);
  const panel = page.getByTestId('sessions-panel');
  await panel.getByTestId('sessions-refresh').click();
  await expect(panel.getByTestId('sessions-path')).toContainText('via the agent');
  await expect(panel.getByTestId('sessions-waiting')).toContainText('queued');
  await app.screenshot('sessions-agent-waiting');

  const listed = await agentRound(() => ({ status: 'completed', stdout: QWINSTA, stderr: '' }));
  expect(listed.map((c) => c.type)).toEqual(['qwinsta']);
  await expect(panel.locator('tr[data-session="2"]')).toContainText('kpetrov');
  await expect(panel.getByTestId('sessions-waiting')).toHaveCount(0);

  await panel.getByTestId('logoff-2').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Log off' }).click();
  await expect(panel.getByTestId('sessions-waiting')).toContainText('log the session off');
  const loggedOff = await agentRound((c) => ({ status: 'completed', stdout: `Logging off session ID ${String(c.params.session_id)}`, stderr: '' }));
  expect(loggedOff).toEqual([expect.objectContaining({ type: 'logoff', params: { session_id: 2 } })]);
  await expect(page.getByText('Session 2 logged off')).toBeVisible();
  // The panel asks for the sessions again; the agent now reports the session gone.
  await expect(panel.getByTestId('sessions-waiting')).toBeVisible();
  await agentRound(() => ({ status: 'completed', stdout: QWINSTA.replace(/^>rdp-tcp#5.*\r\n/m, ''), stderr: '' }));
  await expect(panel.locator('tr[data-session="2"]')).toHaveCount(0);
  await expect(panel.locator('tr[data-session="1"]')).toContainText('operator');

  await app.nav(/commands/i).click();
  const rows = page.getByTestId('commands-table').locator('tbody tr[data-command]');
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('WS-REMOTE');
  await rows.nth(1).click();
  await expect(page.getByTestId('commands-table')).toContainText('Logging off session ID 2');
  await app.screenshotBothThemes('commands');
});

test('an RD Gateway event offers the sessions of its target workstation (Russian console)', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login(MONITOR.username, MONITOR.password);
  await page.getByTestId('language').selectOption('ru');
  await app.open('/events');
  await page.locator('tr[data-type="rdg.connection.success"]').click();
  const panel = page.getByTestId('event-detail').getByTestId('sessions-panel');
  await panel.getByTestId('sessions-refresh').click();
  await expect(panel.getByTestId('sessions-path')).toContainText('через WinRM');
  await expect(panel.locator('tr[data-session="1"]')).toContainText('Administrator');
  await app.screenshot('sessions-rdg-event-ru');
  await page.getByTestId('language').selectOption('en');
});
