/** The address fields of a registered host that WinRM can reach it by. */
export interface HostAddresses {
  fqdn: string | null;
  hostname: string;
  ipv4: string | null;
  /** Every IPv4 address the host has reported, oldest first. */
  ips?: readonly string[];
}

/**
 * The addresses to try, in order: the FQDN, then the host name, then the current IPv4 and the
 * older ones newest first. Names come first because WinRM HTTPS certificates name hosts, not
 * addresses, and a DHCP address may since belong to another machine.
 */
export function winRmTargetsOf(host: HostAddresses): string[] {
  const ordered = [host.fqdn, host.hostname, host.ipv4, ...[...(host.ips ?? [])].reverse()];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const a of ordered) {
    const v = a?.trim();
    if (!v || seen.has(v.toLowerCase())) continue;
    seen.add(v.toLowerCase());
    out.push(v);
  }
  return out;
}
