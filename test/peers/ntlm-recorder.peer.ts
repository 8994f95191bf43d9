import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { closeServer, listen, readBody } from './util.js';

/** What a client sent in one NTLM leg: NEGOTIATE (type 1) or AUTHENTICATE (type 3, the crackable response). */
export type NtlmLeg = 'NEGOTIATE' | 'AUTHENTICATE' | 'OTHER';

export interface NtlmRecorder {
  port: number;
  /** Every NTLM message received, in order. */
  legs: NtlmLeg[];
  /** Every request received (with or without NTLM). */
  requests: number;
  stop(): Promise<void>;
}

/** A CHALLENGE (type 2) offering sealing, 128-bit keys and key exchange, with an empty target info (MsvAvEOL). */
function challenge(): Buffer {
  const msg = Buffer.alloc(60);
  msg.write('NTLMSSP\0', 0, 'latin1');
  msg.writeUInt32LE(2, 8);
  msg.writeUInt32LE(56, 16);
  msg.writeUInt32LE(0xe2898235, 20);
  Buffer.from('0123456789abcdef', 'hex').copy(msg, 24);
  msg.writeUInt16LE(4, 40);
  msg.writeUInt16LE(4, 42);
  msg.writeUInt32LE(56, 44);
  return msg;
}

/**
 * An attacker's WinRM stand-in (over HTTPS with `tls`): answers every request 401 with `WWW-Authenticate: Negotiate` (and a
 * challenge to a NEGOTIATE), and records the NTLM messages it receives. An AUTHENTICATE here is a
 * NetNTLMv2 response of the administrator that could be cracked offline or relayed.
 */
export async function startNtlmRecorder(tls?: { key: string; cert: string }): Promise<NtlmRecorder> {
  const legs: NtlmLeg[] = [];
  let requests = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void readBody(req).then(() => {
      requests++;
      const auth = /^(?:Negotiate|NTLM)\s+([A-Za-z0-9+/=]+)$/i.exec(String(req.headers.authorization ?? ''));
      const token = auth ? Buffer.from(auth[1], 'base64') : null;
      const type = token && token.subarray(0, 8).toString('latin1') === 'NTLMSSP\0' ? token.readUInt32LE(8) : 0;
      if (token) legs.push(type === 1 ? 'NEGOTIATE' : type === 3 ? 'AUTHENTICATE' : 'OTHER');
      res.writeHead(401, { 'WWW-Authenticate': type === 1 ? `Negotiate ${challenge().toString('base64')}` : 'Negotiate', 'Content-Length': '0' });
      res.end();
    });
  };
  const server: Server = tls ? createTlsServer(tls, handle) : createServer(handle);
  await listen(server);
  return {
    port: (server.address() as AddressInfo).port,
    legs,
    get requests() {
      return requests;
    },
    stop: () => closeServer(server),
  };
}
