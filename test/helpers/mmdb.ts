/**
 * A minimal MaxMind DB (MMDB) writer for tests: an IPv6 search tree (IPv4 networks under ::/96)
 * with 24-bit records, a data section of maps, strings and unsigned integers, and the metadata.
 * Format: https://maxmind.github.io/MaxMind-DB/ (search tree, 16 zero bytes, data, metadata marker + map).
 */

type Value = string | number | Value[] | { [key: string]: Value } | { uint64: bigint };

const TYPE = { string: 2, uint16: 5, uint32: 6, map: 7, uint64: 9, array: 11 } as const;

function control(type: number, size: number): Buffer {
  if (size >= 285) throw new Error('mmdb test writer: sizes of 285 and more are not needed here');
  // Sizes 29–284: 29 in the control byte, the rest in the byte after the (extended) type.
  const [bits, extra] = size < 29 ? [size, []] : [29, [size - 29]];
  // Types above 7 are "extended": type 0 in the control byte, the type minus 7 in the next byte.
  return Buffer.from(type <= 7 ? [(type << 5) | bits, ...extra] : [bits, type - 7, ...extra]);
}

function unsigned(type: number, n: bigint): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(value: Value): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(TYPE.string, bytes.length), bytes]);
  }
  if (typeof value === 'number') return unsigned(value < 65_536 ? TYPE.uint16 : TYPE.uint32, BigInt(value));
  if (Array.isArray(value)) return Buffer.concat([control(TYPE.array, value.length), ...value.map(encode)]);
  if ('uint64' in value && typeof value.uint64 === 'bigint') return unsigned(TYPE.uint64, value.uint64);
  const entries = Object.entries(value as Record<string, Value>);
  return Buffer.concat([control(TYPE.map, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

/** The 128 bits of a network's first address (IPv4 as ::a.b.c.d) and its prefix length in that tree. */
function networkBits(cidr: string): { bits: number[]; prefix: number } {
  const [address, len] = cidr.split('/');
  const bits: number[] = new Array(96).fill(0);
  if (!address.includes('.')) throw new Error('mmdb test writer: IPv4 networks only');
  for (const octet of address.split('.').map(Number)) for (let b = 7; b >= 0; b--) bits.push((octet >> b) & 1);
  return { bits, prefix: 96 + Number(len) };
}

/** An MMDB file mapping each (non-overlapping) IPv4 network to its record. */
export function buildMmdb(networks: { cidr: string; record: Record<string, Value> }[], opts: { databaseType: string; builtAt: Date }): Buffer {
  // Records: a node index, 'empty', or the offset of a record in the data section.
  type Ref = { node: number } | { data: number } | null;
  const nodes: [Ref, Ref][] = [[null, null]];
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const { cidr, record } of networks) {
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    const { bits, prefix } = networkBits(cidr);
    let node = 0;
    for (let depth = 0; depth < prefix - 1; depth++) {
      const next = nodes[node][bits[depth]];
      if (next && 'node' in next) {
        node = next.node;
        continue;
      }
      nodes.push([null, null]);
      nodes[node][bits[depth]] = { node: nodes.length - 1 };
      node = nodes.length - 1;
    }
    nodes[node][bits[prefix - 1]] = { data: offset };
  }
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  const value = (ref: Ref) => (ref === null ? nodeCount : 'node' in ref ? ref.node : nodeCount + 16 + ref.data);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(value(left), i * 6, 3);
    tree.writeUIntBE(value(right), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: nodeCount,
    record_size: 24,
    ip_version: 6,
    database_type: opts.databaseType,
    languages: [],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: { uint64: BigInt(Math.floor(opts.builtAt.getTime() / 1000)) },
    description: {},
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}
