import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificateBindingHash } from './tls-binding.js';

function selfSigned(digest: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'sac-cbt-'));
  try {
    const pem = execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', `-${digest}`, '-keyout', join(dir, 'k.pem'), '-days', '1', '-subj', '/CN=cbt'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return new X509Certificate(pem).raw;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('certificateBindingHash (RFC 5929 tls-server-end-point)', () => {
  it.each([
    ['sha1', 'sha256'],
    ['sha256', 'sha256'],
    ['sha384', 'sha384'],
    ['sha512', 'sha512'],
  ])('a certificate signed with %s is hashed with %s', (signDigest, bindingDigest) => {
    const der = selfSigned(signDigest);
    expect(certificateBindingHash(der)).toEqual(createHash(bindingDigest).update(der).digest());
  });
});
