/** Relative time ranges ("the last …") and their length in ms. */
export const RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type RangeKey = keyof typeof RANGES;

/** Auto-refresh intervals and their length in ms. */
export const REFRESHES = { '30s': 30_000, '1m': 60_000, '5m': 300_000 } as const;
export type RefreshKey = keyof typeof REFRESHES;
