/** The hardware parts of an `agent.inventory` snapshot that a change of raises `hardware_changed`. */
export const HARDWARE_PARTS = ['processor', 'motherboard', 'memory_gb', 'disks', 'video'] as const;
export type HardwarePart = (typeof HARDWARE_PARTS)[number];

const LABELS: Record<HardwarePart, string> = {
  processor: 'processors',
  motherboard: 'motherboard',
  memory_gb: 'memory',
  disks: 'disks',
  video: 'video',
};

/** Canonical JSON: object keys sorted, arrays of objects sorted by their canonical text (agents list disks in any order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).sort().join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Hardware parts that differ between two snapshots (none when there is no previous snapshot). */
export function hardwareDiff(previous: Record<string, unknown> | null, next: Record<string, unknown>): HardwarePart[] {
  if (!previous) return [];
  return HARDWARE_PARTS.filter((part) => canonical(previous[part]) !== canonical(next[part]));
}

/** The title of a `hardware_changed` problem: which parts changed. */
export function hardwareChangeTitle(hostname: string, parts: readonly HardwarePart[]): string {
  return `Hardware changed on ${hostname}: ${parts.map((p) => LABELS[p]).join(', ')}`;
}

/** The `inventory` object of an `agent.inventory` event, or null when it carries none. */
export function inventoryOf(details: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | null {
  const inv = details?.inventory;
  return inv && typeof inv === 'object' && !Array.isArray(inv) ? (inv as Record<string, unknown>) : null;
}
