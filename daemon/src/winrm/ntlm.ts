import { randomBytes } from 'node:crypto';
import { hmacMd5, md4, md5, Rc4, rc4 } from './ntlm-crypto.js';

/*
 * NTLMv2 initiator (MS-NLMP) with extended session security, 128-bit key exchange, a MIC over
 * the three messages, channel bindings, and the signing/sealing that WinRM uses to encrypt
 * messages over plain HTTP.
 */

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');

export const NegotiateFlag = {
  UNICODE: 0x00000001,
  REQUEST_TARGET: 0x00000004,
  SIGN: 0x00000010,
  SEAL: 0x00000020,
  NTLM: 0x00000200,
  ALWAYS_SIGN: 0x00008000,
  EXTENDED_SESSIONSECURITY: 0x00080000,
  TARGET_INFO: 0x00800000,
  VERSION: 0x02000000,
  N128: 0x20000000,
  KEY_EXCH: 0x40000000,
  N56: 0x80000000,
} as const;

const CLIENT_FLAGS =
  (NegotiateFlag.UNICODE |
    NegotiateFlag.REQUEST_TARGET |
    NegotiateFlag.SIGN |
    NegotiateFlag.SEAL |
    NegotiateFlag.NTLM |
    NegotiateFlag.ALWAYS_SIGN |
    NegotiateFlag.EXTENDED_SESSIONSECURITY |
    NegotiateFlag.TARGET_INFO |
    NegotiateFlag.VERSION |
    NegotiateFlag.N128 |
    NegotiateFlag.KEY_EXCH |
    NegotiateFlag.N56) >>>
  0;

const AV_EOL = 0x0000;
const AV_FLAGS = 0x0006;
const AV_TIMESTAMP = 0x0007;
const AV_TARGET_NAME = 0x0009;
const AV_CHANNEL_BINDINGS = 0x000a;
const AV_FLAG_MIC_PRESENT = 0x00000002;

/** Windows 10 / NTLM revision 15, sent in the VERSION field as Windows clients do. */
const VERSION = Buffer.from([10, 0, 0x61, 0x4a, 0, 0, 0, 15]);

const utf16 = (s: string): Buffer => Buffer.from(s, 'utf16le');

/** NTOWFv1: MD4 of the UTF-16LE password. */
export function ntowfv1(password: string): Buffer {
  return md4(utf16(password));
}

/** NTOWFv2: HMAC-MD5 keyed by NTOWFv1 over UPPER(user) + domain, both UTF-16LE. */
export function ntowfv2(user: string, password: string, domain: string): Buffer {
  return hmacMd5(ntowfv1(password), utf16(user.toUpperCase() + domain));
}

/** The NTLMv2 client "temp" blob: header, timestamp, client challenge and the AV pairs. */
export function ntlmv2Temp(timestamp: Buffer, clientChallenge: Buffer, avPairs: Buffer): Buffer {
  return Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]), timestamp, clientChallenge, Buffer.alloc(4), avPairs, Buffer.alloc(4)]);
}

/** NTProofStr and the session base key for an NTLMv2 response. */
export function ntlmv2Response(responseKeyNt: Buffer, serverChallenge: Buffer, temp: Buffer): { ntProofStr: Buffer; sessionBaseKey: Buffer } {
  const ntProofStr = hmacMd5(responseKeyNt, serverChallenge, temp);
  return { ntProofStr, sessionBaseKey: hmacMd5(responseKeyNt, ntProofStr) };
}

export type AvPair = { id: number; value: Buffer };

export function parseAvPairs(buf: Buffer): AvPair[] {
  const out: AvPair[] = [];
  let off = 0;
  while (off + 4 <= buf.length) {
    const id = buf.readUInt16LE(off);
    const len = buf.readUInt16LE(off + 2);
    if (id === AV_EOL) break;
    if (off + 4 + len > buf.length) throw new NtlmError('bad_response', 'NTLM target info is truncated');
    out.push({ id, value: buf.subarray(off + 4, off + 4 + len) });
    off += 4 + len;
  }
  return out;
}

export function encodeAvPairs(pairs: AvPair[]): Buffer {
  const parts: Buffer[] = [];
  for (const p of pairs) {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(p.id, 0);
    head.writeUInt16LE(p.value.length, 2);
    parts.push(head, p.value);
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** Failure inside the NTLM exchange; the transport turns it into a WinRM error code. */
export class NtlmError extends Error {
  constructor(
    readonly reason: 'bad_response' | 'auth_failed' | 'encryption_refused',
    message: string,
  ) {
    super(message);
    this.name = 'NtlmError';
  }
}

export interface NtlmChallenge {
  flags: number;
  serverChallenge: Buffer;
  targetInfo: Buffer;
  raw: Buffer;
}

export function parseChallenge(raw: Buffer): NtlmChallenge {
  if (raw.length < 48 || !raw.subarray(0, 8).equals(SIGNATURE) || raw.readUInt32LE(8) !== 2) {
    throw new NtlmError('bad_response', 'The server sent no valid NTLM challenge');
  }
  const flags = raw.readUInt32LE(20);
  const serverChallenge = Buffer.from(raw.subarray(24, 32));
  const tiLen = raw.readUInt16LE(40);
  const tiOff = raw.readUInt32LE(44);
  if (tiOff + tiLen > raw.length) throw new NtlmError('bad_response', 'NTLM challenge target info is out of bounds');
  return { flags, serverChallenge, targetInfo: Buffer.from(raw.subarray(tiOff, tiOff + tiLen)), raw };
}

/**
 * The user and domain NTLM sends: `DOMAIN\user` splits at the backslash; a UPN (`user@domain`)
 * or a bare name goes whole with an empty domain, as Windows SSPI sends it (MS-NLMP 2.2.1.3).
 */
export function splitUsername(username: string): { user: string; domain: string } {
  const slash = username.indexOf('\\');
  if (slash >= 0) return { domain: username.slice(0, slash), user: username.slice(slash + 1) };
  return { user: username, domain: '' };
}

/**
 * The gss_channel_bindings_struct of RFC 5929 `tls-server-end-point` with empty addresses,
 * hashed into the MsvAvChannelBindings value. No TLS → sixteen zero bytes.
 */
export function channelBindingsHash(certHash: Buffer | null): Buffer {
  if (!certHash) return Buffer.alloc(16);
  const app = Buffer.concat([Buffer.from('tls-server-end-point:', 'latin1'), certHash]);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(app.length, 0);
  return md5(Buffer.alloc(16), len, app);
}

export interface NtlmCredentials {
  username: string;
  password: string;
  /** Client workstation name sent in the AUTHENTICATE message. */
  workstation?: string;
}

export interface NtlmAuthOptions {
  /** Service principal name put in MsvAvTargetName, e.g. `HTTP/host.example`. */
  spn: string;
  /** Hash of the server's TLS certificate for channel binding (HTTPS), null over HTTP. */
  certHash: Buffer | null;
  /** Fail with `encryption_refused` unless the server agrees to sign and seal (WinRM over HTTP). */
  requireSealing?: boolean;
  /** Test seams for fixed vectors; random and now by default. */
  clientChallenge?: Buffer;
  exportedSessionKey?: Buffer;
  timestamp?: Buffer;
}

function fileTimeNow(): Buffer {
  const t = (BigInt(Date.now()) + 11644473600000n) * 10000n;
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(t, 0);
  return b;
}

function field(len: number, offset: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(len, 0);
  b.writeUInt16LE(len, 2);
  b.writeUInt32LE(offset, 4);
  return b;
}

/** One NTLM initiator: negotiate(), then authenticate(challenge) → token + session security. */
export class NtlmClient {
  private negotiateMsg: Buffer | null = null;

  constructor(private readonly creds: NtlmCredentials) {}

  negotiate(): Buffer {
    const msg = Buffer.alloc(40);
    SIGNATURE.copy(msg, 0);
    msg.writeUInt32LE(1, 8);
    msg.writeUInt32LE(CLIENT_FLAGS, 12);
    field(0, 40).copy(msg, 16);
    field(0, 40).copy(msg, 24);
    VERSION.copy(msg, 32);
    this.negotiateMsg = msg;
    return msg;
  }

  authenticate(challengeRaw: Buffer, opts: NtlmAuthOptions): { token: Buffer; security: NtlmSessionSecurity } {
    if (!this.negotiateMsg) throw new Error('negotiate() must come first');
    const challenge = parseChallenge(challengeRaw);
    const flags = (challenge.flags & CLIENT_FLAGS) >>> 0;
    const sealing = NegotiateFlag.SEAL | NegotiateFlag.SIGN | NegotiateFlag.EXTENDED_SESSIONSECURITY | NegotiateFlag.KEY_EXCH | NegotiateFlag.N128;
    if (opts.requireSealing && (flags & sealing) !== sealing) {
      throw new NtlmError('encryption_refused', 'The server refused NTLM message encryption (sealing with 128-bit key exchange)');
    }
    const { user, domain } = splitUsername(this.creds.username);
    const responseKeyNt = ntowfv2(user, this.creds.password, domain);

    const pairs = parseAvPairs(challenge.targetInfo);
    const serverTs = pairs.find((p) => p.id === AV_TIMESTAMP);
    const timestamp = opts.timestamp ?? (serverTs ? Buffer.from(serverTs.value) : fileTimeNow());
    const flagsPair = pairs.find((p) => p.id === AV_FLAGS);
    const avFlags = ((flagsPair ? flagsPair.value.readUInt32LE(0) : 0) | AV_FLAG_MIC_PRESENT) >>> 0;
    const avFlagsValue = Buffer.alloc(4);
    avFlagsValue.writeUInt32LE(avFlags, 0);
    const kept = pairs.filter((p) => p.id !== AV_FLAGS && p.id !== AV_CHANNEL_BINDINGS && p.id !== AV_TARGET_NAME);
    const targetInfo = encodeAvPairs([
      ...kept,
      { id: AV_FLAGS, value: avFlagsValue },
      { id: AV_CHANNEL_BINDINGS, value: channelBindingsHash(opts.certHash) },
      { id: AV_TARGET_NAME, value: utf16(opts.spn) },
    ]);

    const clientChallenge = opts.clientChallenge ?? randomBytes(8);
    const temp = ntlmv2Temp(timestamp, clientChallenge, targetInfo);
    const { ntProofStr, sessionBaseKey } = ntlmv2Response(responseKeyNt, challenge.serverChallenge, temp);
    const ntResponse = Buffer.concat([ntProofStr, temp]);
    // With a MsvAvTimestamp the LMv2 response must be zeros (MS-NLMP 3.1.5.1.2).
    const lmResponse = Buffer.alloc(24);
    // Without key exchange the session key is the NTLMv2 key exchange key itself (MS-NLMP 3.1.5.1.2).
    const keyExchange = (flags & NegotiateFlag.KEY_EXCH) !== 0;
    const exportedSessionKey = keyExchange ? (opts.exportedSessionKey ?? randomBytes(16)) : sessionBaseKey;
    const encryptedKey = keyExchange ? rc4(sessionBaseKey, exportedSessionKey) : Buffer.alloc(0);

    const domainB = utf16(domain);
    const userB = utf16(user);
    const wsB = utf16(this.creds.workstation ?? '');
    const payloadStart = 88;
    const parts = [lmResponse, ntResponse, domainB, userB, wsB, encryptedKey];
    const offsets: number[] = [];
    let off = payloadStart;
    for (const p of parts) {
      offsets.push(off);
      off += p.length;
    }
    const head = Buffer.alloc(payloadStart);
    SIGNATURE.copy(head, 0);
    head.writeUInt32LE(3, 8);
    parts.forEach((p, i) => field(p.length, offsets[i]!).copy(head, 12 + i * 8));
    head.writeUInt32LE(flags, 60);
    VERSION.copy(head, 64);
    const msg = Buffer.concat([head, ...parts]);
    const mic = hmacMd5(exportedSessionKey, this.negotiateMsg, challenge.raw, msg);
    mic.copy(msg, 72);
    return { token: msg, security: new NtlmSessionSecurity(exportedSessionKey, 'client') };
  }
}

const magic = (s: string): Buffer => Buffer.from(`session key to ${s} key magic constant\0`, 'latin1');

/**
 * NTLM signing and sealing with extended session security and key exchange. RC4 handles and
 * sequence numbers persist for the life of the connection, one per direction.
 */
export class NtlmSessionSecurity {
  private readonly sendSignKey: Buffer;
  private readonly recvSignKey: Buffer;
  private readonly sendSeal: Rc4;
  private readonly recvSeal: Rc4;
  private sendSeq = 0;
  private recvSeq = 0;

  constructor(exportedSessionKey: Buffer, side: 'client' | 'server') {
    const c2s = { sign: md5(exportedSessionKey, magic('client-to-server signing')), seal: md5(exportedSessionKey, magic('client-to-server sealing')) };
    const s2c = { sign: md5(exportedSessionKey, magic('server-to-client signing')), seal: md5(exportedSessionKey, magic('server-to-client sealing')) };
    const [send, recv] = side === 'client' ? [c2s, s2c] : [s2c, c2s];
    this.sendSignKey = send.sign;
    this.recvSignKey = recv.sign;
    this.sendSeal = new Rc4(send.seal);
    this.recvSeal = new Rc4(recv.seal);
  }

  private static seqBytes(seq: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(seq >>> 0, 0);
    return b;
  }

  /** Encrypts a message; returns the 16-byte signature and the sealed bytes. */
  seal(message: Buffer): { signature: Buffer; sealed: Buffer } {
    const seq = NtlmSessionSecurity.seqBytes(this.sendSeq++);
    const sealed = this.sendSeal.update(message);
    const checksum = this.sendSeal.update(hmacMd5(this.sendSignKey, seq, message).subarray(0, 8));
    return { signature: Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, seq]), sealed };
  }

  /** Decrypts a sealed message and checks its signature. */
  unseal(signature: Buffer, sealed: Buffer): Buffer {
    const seq = NtlmSessionSecurity.seqBytes(this.recvSeq++);
    const message = this.recvSeal.update(sealed);
    const checksum = this.recvSeal.update(hmacMd5(this.recvSignKey, seq, message).subarray(0, 8));
    const expected = Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, seq]);
    if (signature.length !== 16 || !signature.equals(expected)) {
      throw new NtlmError('bad_response', 'The signature of an encrypted WinRM message does not verify');
    }
    return message;
  }
}
