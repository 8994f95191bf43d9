import type { NextFunction, Request, Response } from 'express';
import type { Role, SessionUser } from '../../../shared/src/index.js';
import type { Authenticator } from './authenticator.js';
import { clientAddress } from './client-address.js';
import { AppError } from '../errors.js';

/** The console token from `Authorization: Bearer <token>`. */
export function bearerToken(req: Request): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

/** The authenticated user a `requireUser` middleware put on the response. */
export function currentUser(res: Response): SessionUser {
  return res.locals.user as SessionUser;
}

/** Who is calling and from where, for the audit log (after `requireUser`). */
export function restActor(req: Request, res: Response): { user: SessionUser; ip: string | undefined } {
  return { user: currentUser(res), ip: clientAddress(req) };
}

/**
 * REST counterpart of `operatorProcedure` / `adminProcedure`: 401 without an active user's
 * token, 403 when `role` is `admin` and the user is not.
 */
export function requireUser(authenticator: Authenticator, role: 'operator' | Extract<Role, 'admin'>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const token = bearerToken(req);
      const user = token ? await authenticator.authenticate(token) : null;
      if (!user) throw new AppError('auth/unauthorized', 'Sign in first');
      if (role === 'admin' && user.role !== 'admin') throw new AppError('auth/forbidden', 'Admin role required');
      res.locals.user = user;
      next();
    } catch (err) {
      next(err);
    }
  };
}
