import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { NtlmClient, NtlmError, type NtlmSessionSecurity } from './ntlm.js';
import { isIP } from 'node:net';
import { urlHost } from '../target-address.js';
import { certificateBindingHash } from './tls-binding.js';
import { winrmError } from './winrm.errors.js';

/*
 * One authenticated WS-Management connection. NTLM authenticates the TCP connection, not the
 * request, so every request of a connection goes over one kept-alive socket (an agent with one
 * socket). Over HTTP the SOAP bodies are sealed with the NTLM session keys (MS-WSMV 2.2.9.1.1),
 * as Windows requires by default; over HTTPS TLS protects them and NTLM carries the channel
 * binding to the server certificate.
 */

export interface WinRmEndpoint {
  /** The address connected to. */
  host: string;
  /** The name the HTTPS certificate is verified for and the NTLM service is named by; default `host`. */
  name?: string;
  port: number;
  https: boolean;
  /** Verify the server certificate against the system CAs (and `ca`); false trusts any. */
  verifyTls: boolean;
  ca?: string | Buffer;
}

export interface Credentials {
  username: string;
  password: string;
}

const PROTOCOL = 'application/HTTP-SPNEGO-session-encrypted';
const BOUNDARY = '--Encrypted Boundary';
const OCTET_MARKER = Buffer.from('\tContent-Type: application/octet-stream\r\n', 'latin1');
/** Replies above this are refused: qwinsta output and WS-Man envelopes are a few kilobytes. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

const SOAP_HEADERS = { 'Content-Type': 'application/soap+xml;charset=UTF-8' };
const ENCRYPTED_HEADERS = { 'Content-Type': `multipart/encrypted;protocol="${PROTOCOL}";boundary="Encrypted Boundary"` };

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EADDRNOTAVAIL']);

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  certDer: Buffer | null;
}

export function encryptBody(security: NtlmSessionSecurity, message: Buffer): Buffer {
  const { signature, sealed } = security.seal(message);
  const sigLen = Buffer.alloc(4);
  sigLen.writeUInt32LE(signature.length, 0);
  return Buffer.concat([
    Buffer.from(
      `${BOUNDARY}\r\n\tContent-Type: ${PROTOCOL}\r\n\tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=${message.length}\r\n` +
        `${BOUNDARY}\r\n`,
      'latin1',
    ),
    OCTET_MARKER,
    sigLen,
    signature,
    sealed,
    Buffer.from(`${BOUNDARY}--\r\n`, 'latin1'),
  ]);
}

export function decryptBody(security: NtlmSessionSecurity, body: Buffer): Buffer {
  const text = body.toString('latin1');
  const lengthMatch = /Length=(\d+)/.exec(text);
  const marker = lengthMatch ? body.indexOf(OCTET_MARKER, lengthMatch.index) : -1;
  if (!lengthMatch || marker < 0) throw winrmError('winrm/bad_response', 'The encrypted WinRM reply has no encrypted part');
  const length = Number(lengthMatch[1]);
  const start = marker + OCTET_MARKER.length;
  if (start + 4 > body.length) throw winrmError('winrm/bad_response', 'The encrypted WinRM reply is truncated');
  const sigLen = body.readUInt32LE(start);
  const sigEnd = start + 4 + sigLen;
  if (sigLen !== 16 || sigEnd + length > body.length) throw winrmError('winrm/bad_response', 'The encrypted WinRM reply is truncated');
  try {
    return security.unseal(body.subarray(start + 4, sigEnd), body.subarray(sigEnd, sigEnd + length));
  } catch (err) {
    throw winrmError('winrm/bad_response', err instanceof Error ? err.message : 'Undecryptable WinRM reply', undefined, err);
  }
}

/** SOAP replies are UTF-8 unless a BOM or the declared charset says UTF-16. */
export function decodeXml(bytes: Buffer, declaredType: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  if (/charset=utf-16/i.test(declaredType)) return bytes.toString('utf16le');
  return bytes.toString('utf8');
}

function authToken(headers: http.IncomingHttpHeaders): Buffer | null {
  const value = headers['www-authenticate'];
  const list = Array.isArray(value) ? value : value ? value.split(',') : [];
  for (const entry of list) {
    const m = /^\s*(?:Negotiate|NTLM)\s+([A-Za-z0-9+/=]+)\s*$/i.exec(entry);
    if (m) return Buffer.from(m[1]!, 'base64');
  }
  return null;
}

export class WinRmConnection {
  private readonly agent: http.Agent;
  private security: NtlmSessionSecurity | null = null;
  private authenticated = false;

  constructor(
    private readonly endpoint: WinRmEndpoint,
    private readonly creds: Credentials,
    private readonly signal: AbortSignal,
  ) {
    const options = { keepAlive: true, maxSockets: 1 };
    this.agent = endpoint.https
      ? // Node checks the certificate against `servername` when set, else against the address connected to.
        new https.Agent({ ...options, rejectUnauthorized: endpoint.verifyTls, ca: endpoint.ca, servername: isIP(this.name) === 0 ? this.name : undefined })
      : new http.Agent(options);
  }

  get url(): string {
    return `${this.endpoint.https ? 'https' : 'http'}://${urlHost(this.endpoint.host)}:${this.endpoint.port}/wsman`;
  }

  private get name(): string {
    return this.endpoint.name ?? this.endpoint.host;
  }

  close(): void {
    this.agent.destroy();
  }

  /** Sends one SOAP envelope and returns the reply envelope and its HTTP status (200 or a 500 fault). */
  async send(soap: string): Promise<{ status: number; xml: string }> {
    const message = Buffer.from(soap, 'utf8');
    for (let attempt = 0; ; attempt++) {
      let res: RawResponse;
      if (this.endpoint.https) {
        // As Windows clients do, the last NTLM leg carries the first request itself.
        res = this.authenticated ? await this.post(message, SOAP_HEADERS) : await this.authenticate(message, SOAP_HEADERS);
      } else {
        // Sealing needs the session keys first, so HTTP authenticates with an empty request.
        if (!this.authenticated) {
          const auth = await this.authenticate(Buffer.alloc(0), {});
          if (auth.status !== 200) throw winrmError('winrm/bad_response', `The WinRM server answered HTTP ${auth.status} to NTLM authentication`, { host: this.endpoint.host, status: auth.status });
        }
        res = await this.post(encryptBody(this.security!, message), ENCRYPTED_HEADERS);
      }
      if (res.status === 401) {
        // The server dropped the connection's authentication (a new socket, or it expired):
        // authenticate again once, then the credentials are what is wrong.
        this.authenticated = false;
        this.security = null;
        if (attempt === 0) continue;
        throw winrmError('winrm/auth_failed', 'The WinRM server rejected the credentials', { host: this.endpoint.host });
      }
      return { status: res.status, xml: this.readReply(res) };
    }
  }

  private readReply(res: RawResponse): string {
    const type = String(res.headers['content-type'] ?? '');
    let xml: string;
    if (type.includes(`protocol="${PROTOCOL}"`)) {
      if (!this.security) throw winrmError('winrm/bad_response', 'The WinRM server sent an encrypted reply over HTTPS');
      xml = decodeXml(decryptBody(this.security, res.body), res.body.toString('latin1', 0, 300));
    } else if (this.security && (res.status === 400 || res.status === 415 || res.body.length > 0)) {
      throw winrmError('winrm/encryption_refused', 'The WinRM server did not accept or answer with an encrypted message', { host: this.endpoint.host, status: res.status });
    } else {
      xml = decodeXml(res.body, type);
    }
    if (res.status === 200 || (res.status === 500 && xml.includes('Fault'))) return xml;
    throw winrmError('winrm/bad_response', `The WinRM server answered HTTP ${res.status}`, { host: this.endpoint.host, status: res.status });
  }

  /** NTLM negotiate → challenge → authenticate on one socket; returns the answer to the last leg. */
  private async authenticate(body: Buffer, headers: Record<string, string>): Promise<RawResponse> {
    const ntlm = new NtlmClient({ username: this.creds.username, password: this.creds.password });
    const first = await this.post(Buffer.alloc(0), { Authorization: `Negotiate ${ntlm.negotiate().toString('base64')}` });
    const challenge = first.status === 401 ? authToken(first.headers) : null;
    if (!challenge) {
      throw winrmError('winrm/auth_failed', first.status === 401 ? 'The WinRM server offers no NTLM authentication' : `The WinRM server answered HTTP ${first.status} to NTLM negotiation`, {
        host: this.endpoint.host,
        status: first.status,
      });
    }
    let token: Buffer;
    let security: NtlmSessionSecurity;
    try {
      ({ token, security } = ntlm.authenticate(challenge, {
        spn: `HTTP/${this.name}`,
        certHash: this.endpoint.https && first.certDer ? certificateBindingHash(first.certDer) : null,
        requireSealing: !this.endpoint.https,
      }));
    } catch (err) {
      if (err instanceof NtlmError) throw winrmError(`winrm/${err.reason}`, err.message, { host: this.endpoint.host }, err);
      throw err;
    }
    const second = await this.post(body, { ...headers, Authorization: `Negotiate ${token.toString('base64')}` });
    if (second.status === 401) throw winrmError('winrm/auth_failed', 'The WinRM server rejected the credentials', { host: this.endpoint.host });
    this.security = this.endpoint.https ? null : security;
    this.authenticated = true;
    return second;
  }

  private post(body: Buffer, headers: Record<string, string>): Promise<RawResponse> {
    const mod = this.endpoint.https ? https : http;
    return new Promise<RawResponse>((resolve, reject) => {
      const req = mod.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          signal: this.signal,
          headers: { ...headers, 'Content-Length': String(body.length), 'User-Agent': 'SAC WinRM client' },
        },
        (res) => {
          const socket = res.socket as TLSSocket;
          const certDer = this.endpoint.https && typeof socket.getPeerCertificate === 'function' ? (socket.getPeerCertificate(false)?.raw ?? null) : null;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy(winrmError('winrm/bad_response', 'The WinRM reply is too large'));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), certDer }));
          res.on('error', (err) => reject(this.transportError(err)));
        },
      );
      req.on('error', (err) => reject(this.transportError(err)));
      req.end(body);
    });
  }

  private transportError(err: unknown): unknown {
    if (err instanceof Error && err.name === 'AppError') return err;
    const host = this.endpoint.host;
    if (this.signal.aborted) return winrmError('winrm/timeout', `WinRM on ${host} did not answer in time`, { host }, err);
    const code = String((err as { code?: unknown }).code ?? '');
    if (UNREACHABLE_CODES.has(code)) return winrmError('winrm/unreachable', `WinRM on ${host}:${this.endpoint.port} is unreachable (${code})`, { host, port: this.endpoint.port, reason: code }, err);
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
      return winrmError('winrm/unreachable', `The TLS certificate of ${host} is not trusted for ${this.name} (${code})`, { host, port: this.endpoint.port, reason: code }, err);
    }
    return winrmError('winrm/unreachable', `WinRM on ${host}:${this.endpoint.port} failed: ${err instanceof Error ? err.message : String(err)}`, { host, port: this.endpoint.port, reason: code || 'error' }, err);
  }
}
