import type { IncomingHttpHeaders } from 'node:http';

const MAX_KEY_LENGTH = 256;

/** The agent API key presented as `Authorization: Bearer <key>` or `X-API-Key: <key>`, if any. */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m && m[1].length <= MAX_KEY_LENGTH) return m[1];
  }
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.trim() && header.trim().length <= MAX_KEY_LENGTH) return header.trim();
  return null;
}
