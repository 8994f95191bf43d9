import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import type { Logger } from 'pino';
import { eventIp, type GeoDatabaseStatus, type GeoStatus, type SettingsValue, type SourceGeo } from '../../../shared/src/index.js';
import { errorSummary } from '../errors.js';
import type { NewEvent } from '../store/index.js';
import { addressScope, isLookedUp, parseAddress, type ParsedAddress } from './address.rules.js';
import { loadAsnTableOnThread, type AsnAnswer, type AsnTable } from './asn-table.js';

export type GeoipSettings = SettingsValue<'geoip'>;

/** The databases shipped as packages: a country MMDB (CC0) and the ASN table as CSV (CC BY 4.0). */
export interface ShippedGeoDatabases {
  countryMmdb: string;
  asnIpv4Csv: string;
  asnIpv6Csv: string;
  /** When the ASN table was released, ISO 8601, or null if unknown. */
  asnBuiltAt: string | null;
}

/** The databases of the `@ip-location-db` packages installed with SAC. */
export function shippedGeoDatabases(): ShippedGeoDatabases {
  const require = createRequire(import.meta.url);
  const asnPkg = require.resolve('@ip-location-db/asn/package.json');
  const asnDir = path.dirname(asnPkg);
  // The package version carries the release: 2.3.2026061719 is 2026-06-17 19:00 UTC.
  const release = /\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec((JSON.parse(readFileSync(asnPkg, 'utf8')) as { version: string }).version);
  return {
    countryMmdb: path.join(path.dirname(require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/package.json')), 'geo-whois-asn-country.mmdb'),
    asnIpv4Csv: path.join(asnDir, 'asn-ipv4-num.csv'),
    asnIpv6Csv: path.join(asnDir, 'asn-ipv6.csv'),
    asnBuiltAt: release ? `${release[1]}-${release[2]}-${release[3]}T${release[4]}:00:00.000Z` : null,
  };
}

/** Addresses whose answers are kept: agents report the same few addresses (and one brute-forcing one) many times. */
const CACHE_MAX = 20_000;

/** Decoded MMDB records kept per database (an ASN database has tens of thousands; a country one a few hundred). */
const DECODED_MAX = 50_000;

type Lookup<T> = (a: ParsedAddress) => T | null;

interface Loaded<T> {
  lookup: Lookup<T> | null;
  status: GeoDatabaseStatus;
}

/** Opens an MMDB file and checks that it answers; throws with the reason when it does not. */
function openMmdb(file: string): { reader: Reader<Response>; builtAt: string | null } {
  // Records decoded once by offset: a country database has a few hundred, read by every lookup.
  const decoded = new Map<string | number, unknown>();
  const cache = {
    get: (key: string | number) => decoded.get(key),
    set: (key: string | number, value: unknown) => {
      if (decoded.size >= DECODED_MAX) decoded.clear();
      decoded.set(key, value);
    },
  };
  const reader = new Reader<Response>(readFileSync(file), { cache });
  // A truncated or corrupt tree fails on the first lookups rather than on opening.
  for (const probe of ['1.1.1.1', '8.8.8.8']) reader.get(probe);
  const epoch = reader.metadata.buildEpoch.getTime();
  return { reader, builtAt: Number.isFinite(epoch) ? new Date(epoch).toISOString() : null };
}

/** `country_code` (ip-location-db), or `country.iso_code` / `registered_country.iso_code` (MaxMind's layout). */
function countryOf(record: Response | null): string | null {
  const r = record as Record<string, unknown> | null;
  const iso = (v: unknown) => (v && typeof v === 'object' ? (v as { iso_code?: unknown }).iso_code : undefined);
  const code = r?.country_code ?? iso(r?.country) ?? iso(r?.registered_country);
  return typeof code === 'string' && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null;
}

function asnOf(record: Response | null): AsnAnswer | null {
  const r = record as Record<string, unknown> | null;
  const asn = r?.autonomous_system_number;
  if (typeof asn !== 'number' || !Number.isInteger(asn) || asn <= 0) return null;
  const org = r?.autonomous_system_organization;
  return { asn, as_org: typeof org === 'string' && org !== '' ? org : null };
}

/**
 * Offline GeoIP/ASN enrichment of events' source addresses. Fail-open: a database that cannot be
 * read is reported (`status()`, shown by `/health` and the dashboard) and left out, and ingest goes
 * on storing events with the address's scope only. Answers are cached by address; the databases
 * are loaded again on `reload()` (the `geoip` settings changed).
 */
export class GeoService {
  private country: Loaded<string> = { lookup: null, status: { source: 'shipped', built_at: null, problem: 'not loaded yet' } };
  private asn: Loaded<AsnAnswer> = { lookup: null, status: { source: 'shipped', built_at: null, problem: 'not loaded yet' } };
  private enabled = false;
  private cache = new Map<string, SourceGeo>();
  private previous = new Map<string, SourceGeo>();
  /** The shipped ASN table, once read: kept across reloads (reading it takes seconds, see docs/performance.md). */
  private shippedAsn: AsnTable | null = null;
  private shippedAsnLoading: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      settings: () => Promise<GeoipSettings>;
      shipped: ShippedGeoDatabases;
      logger: Logger;
    },
  ) {}

  /** Reads the settings and (re)opens the databases they name. Never throws: what fails is reported in `status()`. */
  async reload(): Promise<void> {
    let settings: GeoipSettings;
    try {
      settings = await this.deps.settings();
    } catch (err) {
      this.deps.logger.error({ err: errorSummary(err) }, 'geoip settings not read; enrichment unchanged');
      return;
    }
    const off = (source: 'shipped' | 'file'): GeoDatabaseStatus => ({ source, built_at: null, problem: 'switched off in settings' });
    if (!settings.enabled) {
      this.country = { lookup: null, status: off(settings.country_db_path ? 'file' : 'shipped') };
      this.asn = { lookup: null, status: off(settings.asn_db_path ? 'file' : 'shipped') };
    } else {
      this.country = this.load(settings.country_db_path ?? this.deps.shipped.countryMmdb, settings.country_db_path ? 'file' : 'shipped', (reader) => (a) =>
        countryOf(reader.get(a.ip)),
      );
      this.asn = settings.asn_db_path
        ? this.load(settings.asn_db_path, 'file', (reader) => (a) => asnOf(reader.get(a.ip)))
        : this.loadShippedAsn();
    }
    this.enabled = this.country.lookup !== null || this.asn.lookup !== null;
    this.forget();
    this.deps.logger.info(
      { enabled: this.enabled, country_problem: this.country.status.problem, asn_problem: this.asn.status.problem },
      this.enabled ? 'address enrichment on' : 'address enrichment off',
    );
  }

  private load<T>(file: string, source: 'shipped' | 'file', lookupOf: (reader: Reader<Response>) => Lookup<T>): Loaded<T> {
    try {
      const { reader, builtAt } = openMmdb(file);
      const lookup = lookupOf(reader);
      return { lookup: source === 'shipped' ? shippedOnly(lookup) : lookup, status: { source, built_at: builtAt, problem: null } };
    } catch (err) {
      return { lookup: null, status: { source, built_at: null, problem: unreadable(err) } };
    }
  }

  /**
   * The shipped ASN table, read on a worker thread when the first address it could answer arrives
   * (documentation ranges excluded: it holds none). Until it is ready, lookups answer no ASN.
   */
  private loadShippedAsn(): Loaded<AsnAnswer> {
    const loaded: Loaded<AsnAnswer> = {
      lookup: shippedOnly((a) => {
        if (this.shippedAsn) return this.shippedAsn.lookup(a);
        this.startShippedAsn(loaded);
        return null;
      }),
      status: { source: 'shipped', built_at: this.deps.shipped.asnBuiltAt, problem: this.shippedAsn ? null : 'not read yet: read on the first public address' },
    };
    return loaded;
  }

  private startShippedAsn(loaded: Loaded<AsnAnswer>): void {
    if (this.shippedAsnLoading) return;
    loaded.status = { ...loaded.status, problem: 'being read' };
    const started = performance.now();
    this.shippedAsnLoading = loadAsnTableOnThread({ ipv4Numeric: this.deps.shipped.asnIpv4Csv, ipv6: this.deps.shipped.asnIpv6Csv }).then(
      (table) => {
        this.shippedAsn = table;
        this.deps.logger.info({ ranges: table.size, ms: Math.round(performance.now() - started) }, 'shipped ASN table ready');
        if (this.asn === loaded) {
          loaded.status = { ...loaded.status, problem: null };
          // Addresses answered meanwhile were cached without their ASN.
          this.forget();
        }
      },
      (err: unknown) => {
        this.shippedAsnLoading = null;
        loaded.lookup = null;
        loaded.status = { ...loaded.status, problem: unreadable(err) };
        this.enabled = this.country.lookup !== null || this.asn.lookup !== null;
        this.deps.logger.error({ err: errorSummary(err) }, 'shipped ASN table not read');
      },
    );
  }

  private forget(): void {
    this.cache = new Map();
    this.previous = new Map();
  }

  status(): GeoStatus {
    return { enabled: this.enabled, country: { ...this.country.status }, asn: { ...this.asn.status } };
  }

  /** The enrichment of an address as an agent sent it, or null when it is not an address. */
  lookup(raw: string): SourceGeo | null {
    const cached = this.cache.get(raw) ?? this.previous.get(raw);
    if (cached) return cached;
    const address = parseAddress(raw);
    if (!address) return null;
    const scope = addressScope(address);
    let country: string | null = null;
    let asn: AsnAnswer | null = null;
    if (isLookedUp(scope)) {
      country = this.ask(this.country, address);
      asn = this.ask(this.asn, address);
    }
    const geo: SourceGeo = { ip: address.ip, scope, country, asn: asn?.asn ?? null, as_org: asn?.as_org ?? null };
    // Two generations instead of evicting one by one (a Map's oldest key is slow to find once
    // many were deleted): the older half is dropped at once, recent addresses stay.
    if (this.cache.size >= CACHE_MAX / 2) {
      this.previous = this.cache;
      this.cache = new Map();
    }
    this.cache.set(raw, geo);
    return geo;
  }

  /** A lookup that throws (a database corrupt past its first nodes) turns that database off and answers null. */
  private ask<T>(db: Loaded<T>, address: ParsedAddress): T | null {
    if (!db.lookup) return null;
    try {
      return db.lookup(address);
    } catch (err) {
      db.lookup = null;
      db.status = { ...db.status, problem: unreadable(err) };
      this.enabled = this.country.lookup !== null || this.asn.lookup !== null;
      this.deps.logger.error({ err: errorSummary(err) }, 'address database failed a lookup; turned off');
      return null;
    }
  }

  /**
   * Sets `source_geo` on each item whose details name a source address (the ingest step before a
   * batch is committed). Cheap per event: one cached map read for a known address.
   */
  enrich(items: NewEvent[]): void {
    for (const item of items) {
      const ip = eventIp(item.event.details);
      item.source_geo = ip === null ? null : this.lookup(ip);
    }
  }
}

/**
 * A shipped database's lookup, documentation ranges excluded: they are in no country or AS, and
 * the shipped whois-derived data answers some of them anyway (198.51.100.0/24 as AU).
 */
function shippedOnly<T>(lookup: Lookup<T>): Lookup<T> {
  return (a) => (addressScope(a) === 'documentation' ? null : lookup(a));
}

/** Why a database is off, without its path (`/health` is public). */
function unreadable(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return `database file cannot be read (${code})`;
  return `database unreadable: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
}
