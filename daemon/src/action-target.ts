import { AppError } from './errors.js';
import type { Host, Store } from './store/index.js';

/**
 * Where remote actions may send administrator credentials for a host. `address` is connected to;
 * `name` is what the WinRM HTTPS certificate must be valid for and the NTLM service name (the
 * address itself unless an admin pinned a name).
 */
export type ActionTarget =
  | { verified: true; source: 'pinned' | 'observed'; address: string; name: string }
  | { verified: false; reason_code: 'unseen' | 'mismatch' | 'shared'; reason: string };

type TargetFields = Pick<Host, 'id' | 'hostname' | 'ipv4' | 'ips' | 'observed_ip' | 'pinned_address' | 'pinned_winrm_name'>;

/** A stored address or name compared case-insensitively; null when empty. */
export const lower = (v: string | null | undefined): string | null => v?.trim().toLowerCase() || null;

/**
 * A host's action target: its pinned address; else the address SAC observed its agent connect
 * from, when the agent also reports that address (ipv4 or an earlier one) and no other host's
 * agent connects from it (a NAT or an unconfigured proxy identifies no single host); else
 * unverified, with the reason. What an agent reports alone never makes a target.
 */
export function actionTargetOf(host: TargetFields, hosts: readonly TargetFields[]): ActionTarget {
  if (host.pinned_address) return { verified: true, source: 'pinned', address: host.pinned_address, name: host.pinned_winrm_name ?? host.pinned_address };
  const observed = host.observed_ip;
  if (!observed) return { verified: false, reason_code: 'unseen', reason: 'SAC has not yet seen this host’s agent connect' };
  const reported = [host.ipv4, ...host.ips].map(lower);
  if (!reported.includes(observed.toLowerCase())) {
    return {
      verified: false,
      reason_code: 'mismatch',
      reason: `the agent connects from ${observed} but reports ${host.ipv4 ?? 'no address'}`,
    };
  }
  const sharing = hosts.filter((h) => h.id !== host.id && h.observed_ip === observed).map((h) => h.hostname);
  if (sharing.length > 0) {
    return { verified: false, reason_code: 'shared', reason: `the agents of ${[host.hostname, ...sharing].sort().join(', ')} all connect from ${observed}` };
  }
  return { verified: true, source: 'observed', address: observed, name: observed };
}

/** Where administrator credentials may go: the address connected to and the name it must prove (certificate, `known_hosts`). */
export interface VerifiedTarget {
  address: string;
  name: string;
}

/**
 * The verified target of `host` for WinRM and SSH alike (see `actionTargetOf`), or
 * `action/target_unverified` naming why: administrator credentials go only to a pinned address or
 * one SAC saw the agent use, never to an address or name the agent reports.
 */
export async function verifiedTarget(store: Pick<Store, 'hosts'>, host: Host): Promise<VerifiedTarget> {
  const target = actionTargetOf(host, await store.hosts.list());
  if (target.verified) return { address: target.address, name: target.name };
  throw new AppError(
    'action/target_unverified',
    `The address of ${host.hostname} is unverified (${target.reason}); an admin must pin the host's action address before SAC sends credentials there`,
    { details: { host_id: host.id, hostname: host.hostname, reason: target.reason } },
  );
}
