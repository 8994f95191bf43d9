/** Where the agents put the remote address of an event, in the order they are read. */
const IP_KEYS = ['ip_address', 'source_ip', 'external_ip'] as const;

/** The remote address an event names, if any ("-" and "N/A" are the agent's placeholders). */
export function eventIp(details: Record<string, unknown> | null | undefined): string | null {
  for (const key of IP_KEYS) {
    const v = details?.[key];
    if (typeof v === 'string' && v && v !== '-' && v !== 'N/A') return v;
  }
  return null;
}
