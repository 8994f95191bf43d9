import type { SessionUser } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';
import type { AnyOperation, Caller } from './operation.js';

/** The host ids a user may see and act on; null: every host. */
export type ScopeOf = (user: SessionUser) => Promise<ReadonlySet<string> | null>;

/**
 * The operations with their handlers behind the caller's host scope, on REST and tRPC alike (both
 * are derived from these). The role check runs first; then a caller limited to host groups reaches
 * an operation only as its `scope` declaration allows, and one without a declaration not at all.
 */
export function withHostScope<Op extends AnyOperation>(operations: readonly Op[], scopeOf: ScopeOf): Op[] {
  return operations.map((op) => {
    // Public operations answer anyone alike; those about nothing of hosts need no scope (no store read).
    const rule = op.scope;
    if (op.role === 'public' || rule === 'none') return op;
    const handler = async (input: unknown, caller: Caller) => {
      const scope = caller.user ? await scopeOf(caller.user) : null;
      const scoped = { ...caller, scope };
      if (scope === null || rule === 'filtered') return op.handler(input, scoped);
      if (rule === undefined) throw new AppError('auth/out_of_scope', 'Not available to a user limited to host groups');
      const hosts = await rule.host(input);
      const ids: readonly string[] = hosts === null ? [] : typeof hosts === 'string' ? [hosts] : hosts;
      if (ids.length === 0 || !ids.every((id) => scope.has(id))) throw rule.notFound(input);
      return op.handler(input, scoped);
    };
    return { ...op, handler };
  });
}
