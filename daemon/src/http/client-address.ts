import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { plainAddress as plain, type TrustedProxies } from '../trusted-proxies.js';

/** One `X-Forwarded-For` entry as an address: bare or bracketed IPv6, IPv4 with or without a port. */
function forwardedAddress(entry: string): string | null {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return isIP(value) === 0 ? null : plain(value);
}

/**
 * The client's address: the TCP peer, unless the peer is a trusted proxy — then the rightmost
 * `X-Forwarded-For` entry that is not a trusted proxy itself. Entries left of that one were written
 * by whoever the first untrusted hop was (the client can put anything there) and are never read.
 * A malformed entry ends the walk at the trusted hop that passed it on.
 */
export function resolveClientAddress(req: IncomingMessage, trusted: TrustedProxies): string | undefined {
  const peer = req.socket.remoteAddress;
  if (peer === undefined || trusted.size === 0 || !trusted.has(peer)) return peer && plain(peer);
  const header = req.headers['x-forwarded-for'];
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').filter((e) => e.trim() !== '');
  let address = plain(peer);
  for (let i = entries.length - 1; i >= 0; i--) {
    const hop = forwardedAddress(entries[i]);
    if (hop === null) return address;
    address = hop;
    if (!trusted.has(hop)) return hop;
  }
  return address;
}

/**
 * Where the request carries its resolved address: a property, not a WeakMap entry — every request
 * of peak ingest would be an ephemeron for the garbage collector to trace.
 */
const ADDRESS = Symbol('sac.clientAddress');
const HTTPS = Symbol('sac.https');
type Addressed = IncomingMessage & { [ADDRESS]?: string | undefined; [HTTPS]?: boolean };

/**
 * Whether the client's request came over https: a TLS socket, or a trusted proxy saying so in the
 * last `X-Forwarded-Proto` entry (the one it wrote); from anyone else the header is not read.
 */
export function resolveClientHttps(req: IncomingMessage, trusted: TrustedProxies): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const peer = req.socket.remoteAddress;
  if (peer === undefined || trusted.size === 0 || !trusted.has(peer)) return false;
  const header = req.headers['x-forwarded-proto'];
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  return entries[entries.length - 1].trim().toLowerCase() === 'https';
}

/** Called once per request by the HTTP front (server/server.ts), before any route runs. */
export function recordClientAddress(req: IncomingMessage, trusted: TrustedProxies): void {
  (req as Addressed)[ADDRESS] = resolveClientAddress(req, trusted);
  (req as Addressed)[HTTPS] = resolveClientHttps(req, trusted);
}

/** Whether this request came over https (see `resolveClientHttps`); the socket's own TLS for one that did not come through the HTTP front. */
export function requestIsHttps(req: IncomingMessage): boolean {
  return HTTPS in req ? (req as Addressed)[HTTPS] === true : (req.socket as { encrypted?: boolean }).encrypted === true;
}

/**
 * The address sign-in throttling, rate limits, audit entries and logs use for this request (see
 * `resolveClientAddress`); the TCP peer for a request that did not come through the HTTP front.
 */
export function clientAddress(req: IncomingMessage): string | undefined {
  return ADDRESS in req ? (req as Addressed)[ADDRESS] : req.socket.remoteAddress;
}
