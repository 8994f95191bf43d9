/**
 * Where an event's source address is: the kind of range it lies in and, for a public address,
 * its country and autonomous system from the offline databases (see the daemon's `geo/`).
 */
export const ADDRESS_SCOPES = ['public', 'private', 'loopback', 'link_local', 'cgnat', 'documentation', 'multicast', 'unspecified', 'reserved'] as const;
export type AddressScope = (typeof ADDRESS_SCOPES)[number];

/** The enrichment of an event's source address, stored with the event at ingest. */
export interface SourceGeo {
  /** The address looked up, normalised (an IPv4-mapped IPv6 address as IPv4). */
  ip: string;
  scope: AddressScope;
  /** ISO 3166-1 alpha-2, upper case; null when unknown or not a public address. */
  country: string | null;
  asn: number | null;
  /** The autonomous system's organisation name. */
  as_org: string | null;
}

/** One database of the enrichment as `/health` and the dashboard report it. */
export interface GeoDatabaseStatus {
  /** `shipped`: the package in the installation; `file`: the path in the `geoip` settings. */
  source: 'shipped' | 'file';
  /** When the database was built (MMDB build epoch, or the shipped table's release), ISO 8601. */
  built_at: string | null;
  /** Why this database is not used, or null while it answers. */
  problem: string | null;
}

/** Whether source addresses are enriched now. Enrichment is fail-open: when off, events are stored without country/ASN. */
export interface GeoStatus {
  /** False when switched off in settings or when neither database could be loaded. */
  enabled: boolean;
  country: GeoDatabaseStatus;
  asn: GeoDatabaseStatus;
}

/** Failed-login source counts of the dashboard range (countries for the map, the busiest autonomous systems). */
export interface FailedLoginSources {
  countries: { country: string; count: number }[];
  asns: { asn: number; as_org: string | null; count: number }[];
}

/** Event types counted as failed logins for the dashboard's source countries and ASNs. */
export const FAILED_LOGIN_TYPES = ['ssh.login.failed', 'rdp.login.failed', 'rdg.connection.failed'] as const;
