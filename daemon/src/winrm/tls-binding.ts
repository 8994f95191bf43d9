import { createHash } from 'node:crypto';

/*
 * RFC 5929 tls-server-end-point: the certificate hashed with its signature's hash algorithm,
 * where MD5 and SHA-1 are replaced by SHA-256. Only the signatureAlgorithm OID is read from the
 * DER, which is the second element of the outer Certificate SEQUENCE.
 */

const STRONG_HASHES: Record<string, 'sha384' | 'sha512'> = {
  '2a864886f70d01010c': 'sha384', // sha384WithRSAEncryption
  '2a864886f70d01010d': 'sha512', // sha512WithRSAEncryption
  '2a8648ce3d040303': 'sha384', // ecdsa-with-SHA384
  '2a8648ce3d040304': 'sha512', // ecdsa-with-SHA512
};

function readHeader(der: Buffer, off: number): { tag: number; start: number; end: number } {
  const tag = der[off]!;
  let len = der[off + 1]!;
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i]!;
    start += n;
  }
  if (start + len > der.length) throw new Error('DER element runs past the end');
  return { tag, start, end: start + len };
}

function signatureHash(der: Buffer): 'sha256' | 'sha384' | 'sha512' {
  try {
    const cert = readHeader(der, 0);
    const tbs = readHeader(der, cert.start);
    const algId = readHeader(der, tbs.end);
    const oid = readHeader(der, algId.start);
    if (oid.tag !== 0x06) return 'sha256';
    return STRONG_HASHES[der.subarray(oid.start, oid.end).toString('hex')] ?? 'sha256';
  } catch {
    return 'sha256';
  }
}

/** The channel-binding hash of a DER certificate. */
export function certificateBindingHash(der: Buffer): Buffer {
  return createHash(signatureHash(der)).update(der).digest();
}
