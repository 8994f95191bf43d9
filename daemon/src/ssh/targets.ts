import { isTargetAddress } from '../target-address.js';
import type { Host } from '../store/index.js';

/** Placeholders the Windows agent writes instead of null. */
const PLACEHOLDERS = new Set(['', '-', 'n/a', 'null']);

/** An address field as an agent reported it, or null when it is missing or a placeholder. */
export function presentAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return PLACEHOLDERS.has(v.toLowerCase()) ? null : v;
}

/**
 * Addresses to reach a host over SSH, in order: FQDN, host name, then its current IPv4; a value
 * that is neither a DNS name nor an IP literal is left out. The server proves itself with a
 * `known_hosts` key before any credential is offered.
 */
export function sshTargets(host: Pick<Host, 'fqdn' | 'hostname' | 'ipv4'>): string[] {
  return [...new Set([host.fqdn, host.hostname, host.ipv4].map((v) => presentAddress(v)).filter((v): v is string => v !== null && isTargetAddress(v)))];
}
