import { createHash, createHmac } from 'node:crypto';

/*
 * Node 20's OpenSSL 3 no longer offers MD4 or RC4 (they live in the legacy provider), yet NTLM
 * needs both: MD4 for the NT hash and RC4 for key exchange and sealing. They are written here
 * from RFC 1320 and the RC4 key schedule; HMAC-MD5 and MD5 still come from node:crypto.
 */

function rotl(x: number, n: number): number {
  return ((x << n) | (x >>> (32 - n))) >>> 0;
}

/** MD4 digest (RFC 1320). */
export function md4(input: Uint8Array): Buffer {
  const bitLength = input.length * 8;
  const padded = Buffer.alloc((((input.length + 8) >> 6) + 1) * 64);
  padded.set(input);
  padded[input.length] = 0x80;
  padded.writeUInt32LE(bitLength >>> 0, padded.length - 8);
  padded.writeUInt32LE(Math.floor(bitLength / 0x100000000) >>> 0, padded.length - 4);

  let a = 0x67452301;
  let b = 0xefcdab89;
  let c = 0x98badcfe;
  let d = 0x10325476;
  const x = new Array<number>(16);
  const f = (p: number, q: number, r: number): number => (p & q) | (~p & r);
  const g = (p: number, q: number, r: number): number => (p & q) | (p & r) | (q & r);
  const h = (p: number, q: number, r: number): number => p ^ q ^ r;

  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) x[i] = padded.readUInt32LE(off + i * 4);
    const [aa, bb, cc, dd] = [a, b, c, d];
    const r1 = [3, 7, 11, 19];
    for (let i = 0; i < 16; i++) {
      const s = r1[i % 4]!;
      const t = rotl((a + f(b, c, d) + x[i]!) >>> 0, s);
      [a, b, c, d] = [d, t, b, c];
    }
    const r2 = [3, 5, 9, 13];
    const order2 = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15];
    for (let i = 0; i < 16; i++) {
      const t = rotl((a + g(b, c, d) + x[order2[i]!]! + 0x5a827999) >>> 0, r2[i % 4]!);
      [a, b, c, d] = [d, t, b, c];
    }
    const r3 = [3, 9, 11, 15];
    const order3 = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
    for (let i = 0; i < 16; i++) {
      const t = rotl((a + h(b, c, d) + x[order3[i]!]! + 0x6ed9eba1) >>> 0, r3[i % 4]!);
      [a, b, c, d] = [d, t, b, c];
    }
    a = (a + aa) >>> 0;
    b = (b + bb) >>> 0;
    c = (c + cc) >>> 0;
    d = (d + dd) >>> 0;
  }
  const out = Buffer.alloc(16);
  out.writeUInt32LE(a, 0);
  out.writeUInt32LE(b, 4);
  out.writeUInt32LE(c, 8);
  out.writeUInt32LE(d, 12);
  return out;
}

/** An RC4 keystream whose state carries over between calls, as NTLM sealing requires. */
export class Rc4 {
  private readonly s = new Uint8Array(256);
  private i = 0;
  private j = 0;

  constructor(key: Uint8Array) {
    for (let k = 0; k < 256; k++) this.s[k] = k;
    let j = 0;
    for (let k = 0; k < 256; k++) {
      j = (j + this.s[k]! + key[k % key.length]!) & 0xff;
      [this.s[k], this.s[j]] = [this.s[j]!, this.s[k]!];
    }
  }

  update(data: Uint8Array): Buffer {
    const out = Buffer.alloc(data.length);
    const s = this.s;
    for (let n = 0; n < data.length; n++) {
      this.i = (this.i + 1) & 0xff;
      this.j = (this.j + s[this.i]!) & 0xff;
      [s[this.i], s[this.j]] = [s[this.j]!, s[this.i]!];
      out[n] = data[n]! ^ s[(s[this.i]! + s[this.j]!) & 0xff]!;
    }
    return out;
  }
}

/** One-shot RC4 with a fresh key schedule. */
export function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  return new Rc4(key).update(data);
}

export function hmacMd5(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const h = createHmac('md5', key);
  for (const p of parts) h.update(p);
  return h.digest();
}

export function md5(...parts: Uint8Array[]): Buffer {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
}
