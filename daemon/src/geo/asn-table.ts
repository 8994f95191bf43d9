import { readFileSync } from 'node:fs';
import { oneAnswer, startWorker } from '../worker-threads.js';
import { v6Words, type ParsedAddress } from './address.rules.js';

/** The shipped table's two CSV files. */
export interface AsnTableFiles {
  ipv4Numeric: string;
  ipv6: string;
}

/** An autonomous system as the lookups answer it. */
export interface AsnAnswer {
  asn: number;
  as_org: string | null;
}

/** One address family's ranges, sorted by first address; IPv6 addresses take four words each. */
export interface Ranges {
  words: 1 | 4;
  start: Uint32Array;
  end: Uint32Array;
  asn: Uint32Array;
  /** Index into `orgs`. */
  org: Uint32Array;
  count: number;
}

export interface AsnTableParts {
  v4: Ranges;
  v6: Ranges;
  orgs: string[];
}

/** Compares the `words`-word address at `table[i * words]` with `address`. */
function compare(table: Uint32Array, i: number, address: ArrayLike<number>, words: number): number {
  for (let w = 0; w < words; w++) {
    const d = table[i * words + w] - address[w];
    if (d !== 0) return d;
  }
  return 0;
}

/** The CSV's fields of one line: first, last, asn, organisation (quoted when it holds a comma). */
function* csvRows(text: string): Generator<[string, string, string, string]> {
  let pos = 0;
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = text.length;
    const c1 = text.indexOf(',', pos);
    const c2 = text.indexOf(',', c1 + 1);
    const c3 = text.indexOf(',', c2 + 1);
    if (c1 > 0 && c3 > 0 && c3 < eol) {
      let org = text.slice(c3 + 1, text[eol - 1] === '\r' ? eol - 1 : eol);
      if (org.startsWith('"') && org.endsWith('"')) org = org.slice(1, -1).replace(/""/g, '"');
      yield [text.slice(pos, c1), text.slice(c1 + 1, c2), text.slice(c2 + 1, c3), org];
    }
    pos = eol + 1;
  }
}

/** A copy twice as long. */
function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * The shipped ASN table (`@ip-location-db/asn`, RouteViews and DB-IP, CC BY 4.0) held as typed
 * arrays — four per address family and one string per distinct organisation — and searched by
 * binary search. The package has CSV only; loading it is measured in docs/performance.md.
 */
export class AsnTable {
  private constructor(
    private readonly v4: Ranges,
    private readonly v6: Ranges,
    private readonly orgs: string[],
  ) {}

  /**
   * Reads the table's IPv4 (numeric) and IPv6 CSV files; throws when they are unreadable or out of
   * order. Takes seconds (docs/performance.md): run on a worker thread (`asn-table.worker.ts`).
   */
  static load(files: AsnTableFiles): AsnTable {
    const orgs: string[] = [];
    const orgIndex = new Map<string, number>();
    const read = (file: string, words: 1 | 4, parse: (text: string) => ArrayLike<number>): Ranges => {
      let start: Uint32Array = new Uint32Array(1024 * words);
      let end: Uint32Array = new Uint32Array(1024 * words);
      let asns: Uint32Array = new Uint32Array(1024);
      let orgOf: Uint32Array = new Uint32Array(1024);
      let n = 0;
      for (const [first, last, asn, org] of csvRows(readFileSync(file, 'utf8'))) {
        if (n === asns.length) {
          [start, end, asns, orgOf] = [grow(start), grow(end), grow(asns), grow(orgOf)];
        }
        start.set(parse(first), n * words);
        end.set(parse(last), n * words);
        if (n > 0 && compare(start, n - 1, start.subarray(n * words, (n + 1) * words), words) > 0) {
          throw new Error(`${file}: ranges are not sorted (line ${n + 1})`);
        }
        asns[n] = Number(asn);
        let o = orgIndex.get(org);
        if (o === undefined) {
          o = orgs.push(org) - 1;
          orgIndex.set(org, o);
        }
        orgOf[n] = o;
        n++;
      }
      if (n === 0) throw new Error(`${file}: no ranges`);
      // Trimmed to size: the growth slack would otherwise stay allocated for the daemon's life.
      return { words, start: start.slice(0, n * words), end: end.slice(0, n * words), asn: asns.slice(0, n), org: orgOf.slice(0, n), count: n };
    };
    const v4 = read(files.ipv4Numeric, 1, (t) => [Number(t)]);
    const v6 = read(files.ipv6, 4, v6Words);
    return new AsnTable(v4, v6, orgs);
  }

  /** The table as plain data (its arrays can be transferred from a worker thread). */
  parts(): AsnTableParts {
    return { v4: this.v4, v6: this.v6, orgs: this.orgs };
  }

  static fromParts(parts: AsnTableParts): AsnTable {
    return new AsnTable(parts.v4, parts.v6, parts.orgs);
  }

  /** Ranges held, both families. */
  get size(): number {
    return this.v4.count + this.v6.count;
  }

  lookup(a: ParsedAddress): AsnAnswer | null {
    const r = a.family === 4 ? this.v4 : this.v6;
    const address = a.family === 4 ? [a.v4] : a.v6;
    // The last range starting at or before the address.
    let lo = 0;
    let hi = r.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(r.start, mid, address, r.words) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0 || compare(r.end, found, address, r.words) < 0) return null;
    return { asn: r.asn[found], as_org: this.orgs[r.org[found]] || null };
  }
}

/** Loads the table on a worker thread, off the daemon's event loop; its arrays are moved back, not copied. */
export async function loadAsnTableOnThread(files: AsnTableFiles): Promise<AsnTable> {
  const worker = startWorker(import.meta.url, 'asn-table.worker', { workerData: files });
  // A daemon stopping meanwhile does not wait for it.
  worker.unref();
  const reply = await oneAnswer<{ ok: true; parts: AsnTableParts } | { ok: false; message: string }>(
    worker,
    (code) => new Error(`the ASN table thread exited (code ${code}) without an answer`),
  );
  if (!reply.ok) throw new Error(reply.message);
  return AsnTable.fromParts(reply.parts);
}
