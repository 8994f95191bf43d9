/** What the agents send in a field they have no value for, instead of leaving it out. */
export const AGENT_PLACEHOLDERS = ['-', 'N/A'] as const;

/** A field's value when it is a real one: a non-empty string that is no agent placeholder; else null. */
export function agentValue(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && !(AGENT_PLACEHOLDERS as readonly string[]).includes(value) ? value : null;
}

/** Where the agents put the client IP an event is about, in the order they are read. */
export const IP_KEYS = ['ip_address', 'source_ip', 'external_ip', 'ip'] as const;

/** The client IP an event's details name, from the first of `IP_KEYS` with a real value, or null. */
export function eventIp(details: Readonly<Record<string, unknown>> | null | undefined): string | null {
  for (const key of IP_KEYS) {
    const value = agentValue(details?.[key]);
    if (value !== null) return value;
  }
  return null;
}
