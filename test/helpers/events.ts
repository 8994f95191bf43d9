import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { EventInput } from '../../shared/src/index.js';

/** The 24 agent events of shared/fixtures (copied into test/fixtures), shaped as the real agents send them. */
export function loadFixtures(): EventInput[] {
  const text = readFileSync(new URL('../fixtures/agent-events.jsonl', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as EventInput);
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends Record<string, unknown> ? DeepPartial<T[K]> : T[K] };

/** A valid Windows-agent event with a fresh event_id; nested objects in `overrides` are merged one level deep. */
export function buildEvent(overrides: DeepPartial<EventInput> & Record<string, unknown> = {}): EventInput {
  const base: EventInput = {
    schema_version: '1.0',
    event_id: randomUUID(),
    occurred_at: '2026-06-03T09:14:27.512+10:00',
    source: { product: 'rdp-login-monitor', product_version: '2.1.7-SAC', agent_instance_id: '6c1d2f0a-7b3e-4f59-a8d2-0e4b9c7f1a23' },
    host: { hostname: 'RDS01', os_family: 'windows', display_name: 'RDS01 (10.0.0.21)', ipv4: '10.0.0.21' },
    category: 'auth',
    type: 'rdp.login.failed',
    severity: 'warning',
    title: 'RDP login failed',
    summary: '4625 administrator from 203.0.113.45',
    details: { user: 'administrator', ip_address: '203.0.113.45', logon_type: 3, event_id_windows: 4625, generated_by: 'agent', telegram_via: 'sac' },
  };
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    const current = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && current && typeof current === 'object'
        ? { ...(current as object), ...(v as object) }
        : v;
  }
  return out as EventInput;
}

/**
 * An agent's own lifecycle event (heartbeat, update started/succeeded, version report) from a host
 * that reports the loopback address: every remote-action peer of the tests (WinRM stand-in, sshd)
 * listens there, so that is where SAC reaches the host.
 */
export function agentLifecycleEvent(
  agent: { hostname: string; os_family: EventInput['host']['os_family']; product: EventInput['source']['product'] },
  type: string,
  version: string,
  details: Record<string, unknown> = {},
): Parameters<typeof buildEvent>[0] {
  return {
    type,
    category: 'agent',
    severity: 'info',
    title: type,
    summary: type,
    source: { product: agent.product, product_version: version, agent_instance_id: `agent-${agent.hostname}` },
    host: { hostname: agent.hostname, os_family: agent.os_family, ipv4: '127.0.0.1' },
    details: { generated_by: 'agent', ...details },
  };
}

/** An RD Gateway connection event of gateway RDG01 to the workstation `internalIp` (an address or a name). */
export function rdGatewayEvent(internalIp: string, type = 'rdg.connection.success'): Parameters<typeof buildEvent>[0] {
  return {
    type,
    category: 'network',
    severity: 'info',
    host: { hostname: 'RDG01', os_family: 'windows', ipv4: '10.0.0.1' },
    source: { agent_instance_id: 'gateway-agent' },
    details: { user: 'CORP\\jdoe', external_ip: '203.0.113.9', internal_ip: internalIp, protocol: 'HTTP', event_id_windows: type === 'rdg.connection.success' ? 302 : 303, generated_by: 'agent' },
  };
}

/**
 * The i-th (0–29) failure of an SSH brute force on linux host web-07, as ssh-monitor sends it:
 * from 203.0.113.9 twenty times, then 198.51.100.23 ten times, against admin 12, root 10, oracle 8.
 */
export function sshBruteForceAttempt(i: number, occurredAt: string): Parameters<typeof buildEvent>[0] {
  const ip = i < 20 ? '203.0.113.9' : '198.51.100.23';
  const user = i % 3 === 0 ? 'root' : i % 3 === 1 ? 'admin' : i < 24 ? 'oracle' : 'admin';
  return {
    occurred_at: occurredAt,
    source: { product: 'ssh-monitor', product_version: '1.1.2-ipset', agent_instance_id: 'srv-web-07' },
    host: { hostname: 'web-07', os_family: 'linux', display_name: undefined, ipv4: '10.0.1.17' },
    type: 'ssh.login.failed',
    severity: 'warning',
    title: 'SSH login failed',
    summary: `Failed password for ${user} from ${ip} port ${50000 + i}`,
    details: { user, ip_address: ip, port: 50000 + i, attempt: 1, max_attempts: 3 },
  };
}

/** An RDP logon as the Windows agent sends it (4624 success, 4625 failed) of `user` from `ip` on `hostname`, occurred at `at`. */
export function rdpLogin(hostname: string, outcome: 'failed' | 'success', at: number, ip: string, user = 'administrator') {
  return {
    type: `rdp.login.${outcome}`,
    severity: outcome === 'failed' ? ('warning' as const) : ('info' as const),
    occurred_at: new Date(at).toISOString(),
    source: { agent_instance_id: `agent-${hostname}` },
    host: { hostname, display_name: `${hostname} (10.0.0.9)` },
    details: { user, ip_address: ip, logon_type: 10, event_id_windows: outcome === 'failed' ? 4625 : 4624 },
  };
}
