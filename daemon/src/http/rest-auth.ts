import type { NextFunction, Request, Response } from 'express';
import type { Role, SessionUser } from '../../../shared/src/index.js';
import type { Authenticator } from './authenticator.js';
import { clientAddress } from './client-address.js';
import { AppError } from '../errors.js';
import { requestSession } from './session-cookie.js';

/** The authenticated user a `requireUser` middleware put on the response. */
export function currentUser(res: Response): SessionUser {
  return res.locals.user as SessionUser;
}

/** Who is calling and from where, for the audit log (after `requireUser`). */
export function restActor(req: Request, res: Response): { user: SessionUser; ip: string | undefined } {
  return { user: currentUser(res), ip: clientAddress(req) };
}

/** The session token a `requireUser` middleware authenticated the request with. */
export function currentToken(res: Response): string | null {
  return (res.locals.token as string | undefined) ?? null;
}

/**
 * REST counterpart of `operatorProcedure` / `adminProcedure`: 401 without an active user's
 * token or session cookie, 403 when `role` is `admin` and the user is not, or for a
 * cookie-authenticated write failing the CSRF check.
 */
export function requireUser(authenticator: Authenticator, role: 'operator' | Extract<Role, 'admin'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const session = await requestSession(req, authenticator);
      if (!session) throw new AppError('auth/unauthorized', 'Sign in first');
      if (role === 'admin' && session.user.role !== 'admin') throw new AppError('auth/forbidden', 'Admin role required');
      res.locals.user = session.user;
      res.locals.token = session.token;
      next();
    } catch (err) {
      next(err);
    }
  };
}
