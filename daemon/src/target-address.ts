import { isIP } from 'node:net';

// A leaf module: the WinRM and SSH clients and the action-target rules all check addresses here,
// so none of them imports another for it.

/** One RFC 1123 label: letters, digits and inner hyphens, 1–63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * True when `value` is an IP literal (v4 or v6, unbracketed) or a DNS name of RFC 1123 labels
 * (at most 253 characters, an optional trailing dot). Anything else — `evil.example/#`, a port,
 * spaces, a scheme — is never put into a URL or handed to a socket with credentials.
 */
export function isTargetAddress(value: string): boolean {
  // A zone index (`fe80::1%eth0`) names an interface of this machine, not a host.
  if (isIP(value) !== 0) return !value.includes('%');
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  // An all-numeric last label would read as a (malformed) IPv4 address.
  return labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1]);
}

/** `host` as the authority part of a URL: IPv6 literals bracketed. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
