import { agentValue, eventIp, FAILED_LOGIN_TYPES, type AddressScope } from '../../../shared/src/index.js';
import { addressScope, parseAddress } from '../geo/index.js';
import { someNames } from './correlation.rules.js';

/*
 * The cross-host login rules: which events are failed and successful logins, which source
 * addresses they count under, and how their problems are keyed and titled.
 */

/** Successful logins as the agents send them (SSH, RDP 4624/1149, RD Gateway 302). */
export const SUCCESS_LOGIN_TYPES = ['ssh.login.success', 'rdp.login.success', 'rdg.connection.success'] as const;

/** The problem types of the two rules (a problem's `type`; the rule is its `rule`). */
export const LOGIN_AFTER_FAILURES_TYPE = 'login.after_failures';
export const DISTRIBUTED_BRUTEFORCE_TYPE = 'login.distributed_bruteforce';

/**
 * Scopes whose addresses identify a source across hosts. Private and CGNAT ones count (an
 * attacker inside the network is the point); loopback, link-local, multicast and unspecified
 * are each host's own and would merge unrelated hosts into one "address".
 */
const COUNTED_SCOPES: ReadonlySet<AddressScope> = new Set(['public', 'private', 'cgnat', 'documentation', 'reserved']);

export function isFailedLogin(type: string): boolean {
  return (FAILED_LOGIN_TYPES as readonly string[]).includes(type);
}

export function isSuccessfulLogin(type: string): boolean {
  return (SUCCESS_LOGIN_TYPES as readonly string[]).includes(type);
}

/** The normalised source address an event's logins count under, or null (none, a placeholder, or a host-local address). */
export function loginSource(details: Readonly<Record<string, unknown>> | null | undefined): string | null {
  const raw = eventIp(details);
  const address = raw === null ? null : parseAddress(raw);
  return address && COUNTED_SCOPES.has(addressScope(address)) ? address.ip : null;
}

/** The user of a login for a problem key and title: `DOMAIN\user`, `user@domain` and case folded to `user`; `-` when none. */
export function loginUser(details: Readonly<Record<string, unknown>> | null | undefined): string {
  const raw = agentValue(details?.user);
  if (raw === null) return '-';
  const bare = raw.includes('\\') ? raw.slice(raw.lastIndexOf('\\') + 1) : raw.split('@')[0];
  return bare.toLowerCase() || '-';
}

export function loginAfterFailuresTitle(address: string, user: string, hostname: string, failures: number): string {
  return `Login of ${user} on ${hostname} from ${address} after ${failures} failed logins`;
}

export function distributedBruteforceTitle(address: string, hostnames: readonly string[]): string {
  return `Failed logins from ${address} on ${hostnames.length} hosts: ${someNames(hostnames)}`;
}
