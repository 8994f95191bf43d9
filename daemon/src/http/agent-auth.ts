import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.js';

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

/** Checks a presented agent API key: its record when valid, else null (the apikeys feature does). */
export interface AgentKeyVerifier {
  verify(presented: string): Promise<object | null>;
}

/** REST routes the agents call (command and update polls): a valid agent API key (kept in `res.locals.agentKey`) or 401. */
export function requireAgentKey(apiKeys: AgentKeyVerifier) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const presented = apiKeyFromHeaders(req.headers);
      const key = presented ? await apiKeys.verify(presented) : null;
      if (!key) throw new AppError('auth/unauthorized', 'A valid agent API key is required');
      res.locals.agentKey = key;
      next();
    } catch (err) {
      next(err);
    }
  };
}
