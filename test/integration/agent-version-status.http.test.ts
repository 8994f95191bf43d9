import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdpUpdates } from '../helpers/agent-updates.js';
import { adminToken, api } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { GitReposPeer } from '../peers/git-repos.peer.js';
import { trpc } from '../peers/trpc.js';

interface VersionView {
  hostname: string;
  agent_version: string;
  latest_version: string | null;
  version_status: string;
  newest_seen: string | null;
}

/**
 * The case: no repository configured, one host on 2.1.5 beside others on 2.1.7. Without a
 * known latest release no host is "up to date"; the one older than the fleet's newest is outdated.
 */
describe.each(STORE_KINDS)('agent version status on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer | undefined;

  const heartbeat = (hostname: string, version: string, ipv4: string) =>
    ingestEvent(sac, {
      type: 'agent.heartbeat',
      category: 'agent',
      severity: 'info',
      title: 'heartbeat',
      source: { product: 'rdp-login-monitor', product_version: version, agent_instance_id: undefined },
      host: { hostname, os_family: 'windows', ipv4 },
      details: { generated_by: 'agent' },
    });
  const statuses = async () =>
    Object.fromEntries(
      ((await api(sac, 'GET', '/api/v1/hosts', { token })).body.items as VersionView[]).map((h) => [
        h.hostname,
        [h.agent_version, h.version_status, h.newest_seen, h.latest_version],
      ]),
    );

  beforeAll(async () => {
    sac = await startTestSac(kind);
    token = await adminToken(sac);
    await heartbeat('WS-OLD', '2.1.5-SAC', '10.0.0.61');
    await heartbeat('WS-NEW1', '2.1.7-SAC', '10.0.0.62');
    await heartbeat('WS-NEW2', '2.1.7-SAC', '10.0.0.63');
  });
  afterAll(async () => {
    await sac?.close();
    await repos?.close();
  });

  it('with no repository: latest unknown, and older than the newest seen in the fleet is outdated', async () => {
    expect(await statuses()).toEqual({
      'WS-OLD': ['2.1.5-SAC', 'outdated', '2.1.7-SAC', null],
      'WS-NEW1': ['2.1.7-SAC', 'unknown', '2.1.7-SAC', null],
      'WS-NEW2': ['2.1.7-SAC', 'unknown', '2.1.7-SAC', null],
    });
    const list = (await trpc(sac, token, 'query', 'hosts.list', {})).data as { items: VersionView[] } | VersionView[];
    const items = Array.isArray(list) ? list : list.items;
    const old = items.find((h) => h.hostname === 'WS-OLD')!;
    expect(old).toMatchObject({ version_status: 'outdated', newest_seen: '2.1.7-SAC' });
    const detail = (await api(sac, 'GET', `/api/v1/hosts/${(old as VersionView & { id: string }).id}`, { token })).body;
    expect(detail).toMatchObject({ version_status: 'outdated', newest_seen: '2.1.7-SAC', latest_version: null });
    expect((await api(sac, 'GET', '/api/v1/dashboards/summary', { token })).body.hosts.outdated).toBe(1);
  });

  it('with a repository: up to date only at the latest release', async () => {
    repos = await startRdpUpdates(sac, token);
    await heartbeat('WS-NEW1', '2.1.8-SAC', '10.0.0.62');
    expect(await statuses()).toEqual({
      'WS-OLD': ['2.1.5-SAC', 'outdated', '2.1.8-SAC', '2.1.8-SAC'],
      'WS-NEW1': ['2.1.8-SAC', 'up_to_date', '2.1.8-SAC', '2.1.8-SAC'],
      'WS-NEW2': ['2.1.7-SAC', 'outdated', '2.1.8-SAC', '2.1.8-SAC'],
    });
  });
});
