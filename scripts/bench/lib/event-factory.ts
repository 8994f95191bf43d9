import { randomUUID } from 'node:crypto';
import type { EventInput } from '../../../shared/src/index.js';

/**
 * Realistic agent events for load generation, fast enough not to be the bottleneck: a pool of
 * pre-serialised templates (Windows and Linux hosts, the event types and `details` shapes of
 * agent-contract.md, Cyrillic and emoji text) into which each call splices a fresh event_id and
 * the current local time with a numeric offset and 3 fraction digits, as the Windows agent does.
 */

const ID = '@@EVENT_ID@@';
const TS = '@@OCCURRED_AT@@';

const USERS = ['administrator', 'Администратор', 'svc_backup', 'i.petrov', 'anna.k', 'root', 'deploy', 'guest', 'admin', 'oper1'];
const IPS = ['203.0.113.45', '198.51.100.7', '192.0.2.99', '10.20.30.40', '45.155.205.12', '185.220.101.3'];
const OFFSETS = ['+10:00', '+03:00', '+00:00', '-05:00', '+05:30'];

type Spec = Pick<EventInput, 'category' | 'type' | 'severity' | 'title'> & {
  summary: (u: string, ip: string) => string;
  details: (u: string, ip: string, n: number) => Record<string, unknown>;
  os: 'windows' | 'linux';
};

const WIN_DETAILS = (u: string, ip: string, id: number) => ({
  user: u,
  ip_address: ip,
  logon_type: 10,
  event_id_windows: id,
  workstation_name: 'KALI',
  generated_by: 'agent',
  telegram_via: 'sac',
});

const SPECS: Spec[] = [
  { os: 'windows', category: 'auth', type: 'rdp.login.failed', severity: 'warning', title: 'RDP login failed',
    summary: (u, ip) => `4625 ${u} from ${ip}`, details: (u, ip) => WIN_DETAILS(u, ip, 4625) },
  { os: 'windows', category: 'auth', type: 'rdp.login.success', severity: 'info', title: 'RDP вход выполнен ✅',
    summary: (u, ip) => `4624 ${u} from ${ip}`, details: (u, ip) => WIN_DETAILS(u, ip, 4624) },
  { os: 'windows', category: 'auth', type: 'rdp.bruteforce.burst', severity: 'high', title: 'RDP bruteforce burst (IP+user)',
    summary: () => '4625 burst tier=IP+user count=5',
    details: (u, ip, n) => ({ tier: 'IP+user', count: 5 + (n % 7), bucket_key: `tier1:ip:${ip}|${u}`, generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'windows', category: 'network', type: 'rdg.connection.success', severity: 'info', title: 'RD Gateway connection',
    summary: (u, ip) => `302 ${u} from ${ip}`,
    details: (u, ip, n) => ({ user: `CORP\\${u}`, external_ip: ip, internal_ip: `10.0.${n % 250}.${(n * 7) % 250}`, protocol: 'HTTP',
      gateway_error_code: '0', session_duration_sec: 'N/A', bytes_received: 'N/A', bytes_transferred: 'N/A', event_id_windows: 302,
      generated_by: 'agent', telegram_via: 'agent' }) },
  { os: 'windows', category: 'network', type: 'rdg.connection.disconnected', severity: 'info', title: 'RD Gateway disconnected',
    summary: (u) => `303 ${u}`,
    details: (u, ip, n) => ({ user: `CORP\\${u}`, external_ip: ip, internal_ip: `10.0.${n % 250}.${(n * 7) % 250}`, protocol: 'HTTP',
      gateway_error_code: '1226', session_duration_sec: String(60 + n), bytes_received: String(n * 1000), bytes_transferred: String(n * 300),
      event_id_windows: 303, generated_by: 'agent', telegram_via: 'agent' }) },
  { os: 'windows', category: 'session', type: 'rdp.shadow.control.started', severity: 'warning', title: 'Shadow control started',
    summary: (u) => `20506 shadow by ${u}`,
    details: (u, _ip, n) => ({ shadow_mode: 'control', shadow_action: 'started', shadower_user: u, target_user: 'anna.k',
      target_session_id: String(2 + (n % 5)), session_id: String(n % 9), generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'windows', category: 'agent', type: 'winrm.session.started', severity: 'warning', title: 'WinRM session started',
    summary: (u, ip) => `91 ${u} from ${ip}`,
    details: (u, ip) => ({ user: u, source_ip: ip, ip_address: ip, resource_uri: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd',
      logon_type: 3, transport: 'HTTP', generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'windows', category: 'agent', type: 'smb.admin_share.access', severity: 'warning', title: 'Admin share access C$',
    summary: (u, ip) => `5140 ${u} from ${ip}`,
    details: (u, ip) => ({ user: u, source_ip: ip, ip_address: ip, share_name: '\\\\*\\C$', share_path: '\\??\\C:\\', relative_target: '-',
      access_mask: '0x1', generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'windows', category: 'agent', type: 'agent.heartbeat', severity: 'info', title: 'Agent heartbeat 💓',
    summary: () => 'alive', details: (_u, _ip, n) => ({ host: `RDS${n}`, generated_by: 'agent', telegram_via: 'agent' }) },
  { os: 'linux', category: 'auth', type: 'ssh.login.failed', severity: 'warning', title: 'SSH login failed',
    summary: (u, ip) => `Failed password for ${u} from ${ip} port 22 ssh2`,
    details: (u, ip, n) => ({ user: u, ip_address: ip, port: 40000 + (n % 20000), method: 'password', generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'linux', category: 'auth', type: 'ssh.login.success', severity: 'info', title: 'SSH login accepted',
    summary: (u, ip) => `Accepted publickey for ${u} from ${ip}`,
    details: (u, ip) => ({ user: u, ip_address: ip, method: 'publickey', generated_by: 'agent', telegram_via: 'sac' }) },
  { os: 'linux', category: 'privilege', type: 'privilege.sudo.command', severity: 'high', title: 'sudo to root',
    summary: (u) => `${u} : TTY=pts/0 ; PWD=/home/${u} ; USER=root ; COMMAND=/bin/bash`,
    details: (u) => ({ user: u, target_user: 'root', command: '/bin/bash', generated_by: 'agent', telegram_via: 'sac' }) },
];

interface Template {
  parts: string[];
  type: string;
  severity: EventInput['severity'];
  hostKey: string;
  agentVersion: string;
}

/** The host of template `n`: 500 Windows and 500 Linux hosts (RDS000–499, web-000–499). */
const hostNumber = (n: number): number => n % 500;
/** Spreads host numbers over shares independently of the event types (template `n` has type `n` modulo the specs). */
const hostHash = (hostNo: number): number => Math.imul(hostNo + 1, 0x9e3779b1) >>> 0;

function template(n: number): Template {
  const spec = SPECS[n % SPECS.length];
  const hostNo = hostNumber(n);
  const windows = spec.os === 'windows';
  const hostname = windows ? `RDS${String(hostNo).padStart(3, '0')}` : `web-${String(hostNo).padStart(3, '0')}`;
  // One address per host, as an agent reports it (a host whose address changes is rewritten).
  const ipv4 = `10.${1 + (hostNo >> 8)}.${hostNo & 255}.10`;
  const user = USERS[(n * 3) % USERS.length];
  const ip = IPS[(n * 5) % IPS.length];
  const event: EventInput = {
    schema_version: '1.0',
    event_id: ID,
    occurred_at: TS,
    source: windows
      ? { product: 'rdp-login-monitor', product_version: '2.1.7-SAC', agent_instance_id: `agent-${hostNo}-6c1d2f0a-7b3e` }
      : { product: 'ssh-monitor', product_version: '1.1.2-ipset', agent_instance_id: `ssh-${hostNo}` },
    host: windows
      ? { hostname, os_family: 'windows', display_name: `${hostname} (${ipv4})`, ipv4 }
      : { hostname, os_family: 'linux', fqdn: `${hostname}.corp.example`, ipv4, os_version: 'Debian 12', timezone: 'Europe/Moscow' },
    category: spec.category,
    type: spec.type,
    severity: spec.severity,
    title: spec.title,
    summary: spec.summary(user, ip),
    details: spec.details(user, ip, n),
    ...(n % 4 === 0 ? { tags: ['bench', spec.os] } : {}),
  };
  const json = JSON.stringify(event);
  const [a, rest] = json.split(ID);
  const [b, c] = rest.split(TS);
  return {
    parts: [a, b, c],
    type: spec.type,
    severity: spec.severity,
    hostKey: `${hostname.toLowerCase()}|${spec.os}`,
    agentVersion: event.source.product_version,
  };
}

export interface FactoryEvent {
  eventId: string;
  body: string;
  type: string;
  severity: EventInput['severity'];
  /** The host identity SAC derives: lower-cased hostname + '|' + os_family. */
  hostKey: string;
  agentVersion: string;
}

/**
 * Makes unique events; `next()` costs one UUID and one string concatenation. `eventId` replaces
 * the random UUID (bulk fills use ordered ids, which SQLite's unique index appends cheaply).
 */
export function createEventFactory(
  opts: { poolSize?: number; eventId?: () => string; hostShare?: { index: number; of: number } } = {},
): { next(): FactoryEvent } {
  const poolSize = opts.poolSize ?? 1200;
  const newId = opts.eventId ?? randomUUID;
  const share = opts.hostShare;
  const templates = Array.from({ length: poolSize }, (_, n) => n)
    .filter((n) => !share || hostHash(hostNumber(n)) % share.of === share.index)
    .map(template);
  let i = 0;
  let lastMs = 0;
  const stamps: string[] = [];
  return {
    next() {
      const now = Date.now();
      if (now !== lastMs) {
        lastMs = now;
        stamps.length = 0;
        for (const off of OFFSETS) {
          const sign = off[0] === '-' ? -1 : 1;
          const minutes = sign * (Number(off.slice(1, 3)) * 60 + Number(off.slice(4, 6)));
          stamps.push(new Date(now + minutes * 60_000).toISOString().slice(0, 23) + off);
        }
      }
      const t = templates[i % templates.length];
      const eventId = newId();
      const body = t.parts[0] + eventId + t.parts[1] + stamps[i % stamps.length] + t.parts[2];
      i++;
      return { eventId, body, type: t.type, severity: t.severity, hostKey: t.hostKey, agentVersion: t.agentVersion };
    },
  };
}
