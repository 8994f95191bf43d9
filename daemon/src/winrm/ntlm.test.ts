import { describe, expect, it } from 'vitest';
import { md4, rc4 } from './ntlm-crypto.js';
import { channelBindingsHash, NtlmClient, NtlmSessionSecurity, ntlmv2Response, ntlmv2Temp, ntowfv1, ntowfv2, splitUsername } from './ntlm.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('MD4 (RFC 1320 test suite)', () => {
  it.each([
    ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
    ['a', 'bde52cb31de33e46245e05fbdbd6fb24'],
    ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
    ['message digest', 'd9130a8164549fe818874806e1c7014b'],
    ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', '043f8582f241db351ce627e153e7f0e4'],
    ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', 'e33b4ddc9c38f2199c3e7b164fcc0536'],
  ])('md4(%j)', (input, digest) => {
    expect(md4(Buffer.from(input, 'latin1')).toString('hex')).toBe(digest);
  });
});

describe('RC4', () => {
  it.each([
    ['Key', 'Plaintext', 'bbf316e8d940af0ad3'],
    ['Wiki', 'pedia', '1021bf0420'],
    ['Secret', 'Attack at dawn', '45a01f645fc35b383552544b9bf5'],
  ])('rc4(%s, %s)', (key, text, out) => {
    expect(rc4(Buffer.from(key), Buffer.from(text)).toString('hex')).toBe(out);
  });
});

// MS-NLMP 4.2.1 common values and 4.2.4 NTLMv2 authentication vectors.
describe('NTLMv2 (MS-NLMP 4.2.4)', () => {
  const serverChallenge = hex('0123456789abcdef');
  const clientChallenge = hex('aaaaaaaaaaaaaaaa');
  const randomSessionKey = hex('55555555555555555555555555555555');
  const time = Buffer.alloc(8);
  // MsvAvNbDomainName "Domain", MsvAvNbComputerName "Server", MsvAvEOL.
  const avPairs = hex('02000c0044006f006d00610069006e0001000c005300650072007600650072000000 0000');

  it('NTOWFv1 and NTOWFv2', () => {
    expect(ntowfv1('Password').toString('hex')).toBe('a4f49c406510bdcab6824ee7c30fd852');
    expect(ntowfv2('User', 'Password', 'Domain').toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
  });

  it('NTProofStr, session base key and encrypted session key', () => {
    const temp = ntlmv2Temp(time, clientChallenge, avPairs);
    const { ntProofStr, sessionBaseKey } = ntlmv2Response(ntowfv2('User', 'Password', 'Domain'), serverChallenge, temp);
    expect(ntProofStr.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(sessionBaseKey.toString('hex')).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
    expect(rc4(sessionBaseKey, randomSessionKey).toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
  });

  it('seals "Plaintext" as in 4.2.4.4', () => {
    const security = new NtlmSessionSecurity(randomSessionKey, 'client');
    const { signature, sealed } = security.seal(Buffer.from('Plaintext', 'utf16le'));
    expect(sealed.toString('hex')).toBe('54e50165bf1936dc996020c1811b0f06fb5f');
    expect(signature.toString('hex')).toBe('010000007fb38ec5c55d497600000000');
  });

  it('a server-side context unseals what the client sealed, in sequence, and rejects tampering', () => {
    const client = new NtlmSessionSecurity(randomSessionKey, 'client');
    const server = new NtlmSessionSecurity(randomSessionKey, 'server');
    for (const text of ['first', 'second message', 'third']) {
      const { signature, sealed } = client.seal(Buffer.from(text));
      expect(server.unseal(signature, sealed).toString()).toBe(text);
    }
    const reply = server.seal(Buffer.from('reply'));
    reply.sealed[0] ^= 1;
    expect(() => client.unseal(reply.signature, reply.sealed)).toThrow(/does not verify/);
  });

  it('builds an AUTHENTICATE message with MIC, channel bindings and zero LM response', () => {
    const client = new NtlmClient({ username: 'Domain\\User', password: 'Password' });
    client.negotiate();
    const challenge = Buffer.alloc(48 + avPairs.length);
    Buffer.from('NTLMSSP\0', 'latin1').copy(challenge, 0);
    challenge.writeUInt32LE(2, 8);
    challenge.writeUInt32LE(0xe2898235, 20);
    serverChallenge.copy(challenge, 24);
    challenge.writeUInt16LE(avPairs.length, 40);
    challenge.writeUInt16LE(avPairs.length, 42);
    challenge.writeUInt32LE(48, 44);
    avPairs.copy(challenge, 48);
    const certHash = hex('00'.repeat(32));
    const { token } = client.authenticate(challenge, { spn: 'HTTP/server', certHash, clientChallenge, exportedSessionKey: randomSessionKey, timestamp: time });
    expect(token.readUInt32LE(8)).toBe(3);
    const lmLen = token.readUInt16LE(12);
    const lmOff = token.readUInt32LE(16);
    expect(token.subarray(lmOff, lmOff + lmLen)).toEqual(Buffer.alloc(24));
    expect(token.subarray(72, 88)).not.toEqual(Buffer.alloc(16));
    const ntOff = token.readUInt32LE(24);
    const ntLen = token.readUInt16LE(20);
    expect(token.subarray(ntOff, ntOff + ntLen).includes(channelBindingsHash(certHash))).toBe(true);
    const keyOff = token.readUInt32LE(56);
    expect(token.subarray(keyOff, keyOff + 16).toString('hex')).not.toBe(randomSessionKey.toString('hex'));
  });
});

describe('splitUsername', () => {
  it.each([
    ['CORP\\admin', { domain: 'CORP', user: 'admin' }],
    ['admin@corp.example', { domain: '', user: 'admin@corp.example' }],
    ['admin', { domain: '', user: 'admin' }],
  ])('%s', (input, out) => {
    expect(splitUsername(input)).toEqual(out);
  });
});
