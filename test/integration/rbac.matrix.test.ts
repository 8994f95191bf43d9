import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { restRoutes, trpcProcedures } from '../helpers/routes.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { restAccess, trpcAccess } from '../../daemon/src/http/index.js';
import { REST_ACCESS, TRPC_ACCESS, type Access } from './rbac.table.js';

type Principal = 'none' | 'monitor' | 'admin' | 'deactivated' | 'agent';
const PRINCIPALS: Principal[] = ['none', 'monitor', 'admin', 'deactivated', 'agent'];

/** 'denied:401', 'denied:403', or 'allowed' (any status but 401/403). */
function expected(access: Access, who: Principal): string {
  if (access === 'public') return 'allowed';
  if (access === 'agent') return who === 'agent' ? 'allowed' : 'denied:401';
  if (who === 'none' || who === 'deactivated' || who === 'agent') return 'denied:401';
  if (access === 'admin' && who === 'monitor') return 'denied:403';
  return 'allowed';
}

/** Routes and procedures that end the caller's session: the credential is replaced after each call. */
const SIGN_OUT = new Set(['POST /api/v1/auth/logout', 'auth.logout']);

const outcome = (status: number) => (status === 401 || status === 403 ? `denied:${status}` : 'allowed');

/** A concrete URL for an Express route pattern: params become random ids, RegExp routes a sample path. */
function concretePath(pattern: string): string {
  if (pattern.startsWith('/') && pattern.endsWith('/') && pattern.length > 1 && !pattern.includes(':')) {
    return pattern === '/' ? '/' : '/rbac-probe';
  }
  return pattern.replace(/:[A-Za-z_]+/g, randomUUID()).replace(/\{?\*[A-Za-z_]+\}?/g, 'rbac-probe');
}

/** Sends the request and returns only the status: the body is never awaited (the SSE route never ends). */
async function statusOf(url: string, method: string, credential: string | null): Promise<number> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...(credential ? { Authorization: `Bearer ${credential}` } : {}) },
    body: method === 'GET' || method === 'HEAD' ? undefined : '{}',
    signal: controller.signal,
  });
  controller.abort();
  return res.status;
}

/**
 * A walk makes one request per route (or procedure) and kind of caller, one after another (a
 * sign-out must be renewed before the next): its time grows with the number of operations.
 */
const WALK_TIMEOUT_MS = 120_000;

describe.each(STORE_KINDS)('RBAC matrix on %s', (kind) => {
  let sac: TestSac;
  const credentials = {} as Record<Principal, string | null>;
  let monitorPassword = '';
  let monitorName = '';
  /** A signed-out monitor or admin signs in again, so later checks still hold a live session. */
  async function renewAfterSignOut(key: string, who: Principal): Promise<void> {
    if (!SIGN_OUT.has(key)) return;
    if (who === 'admin') credentials.admin = (await login(sac, sac.adminUsername, sac.adminPassword)).body.token;
    if (who === 'monitor') credentials.monitor = (await login(sac, monitorName, monitorPassword)).body.token;
  }
  beforeAll(async () => {
    sac = await startTestSac(kind);
    credentials.none = null;
    credentials.admin = await adminToken(sac);
    credentials.agent = sac.apiKey;
    const monitor = await createUser(sac, 'monitor');
    credentials.monitor = (await login(sac, monitor.user.username, monitor.password)).body.token;
    monitorName = monitor.user.username;
    monitorPassword = monitor.password;
    const gone = await createUser(sac, 'admin');
    credentials.deactivated = (await login(sac, gone.user.username, gone.password)).body.token;
    const off = await api(sac, 'PATCH', `/api/v1/users/${gone.user.id}`, { token: credentials.admin, body: { active: false } });
    expect(off.status).toBe(200);
  });
  afterAll(async () => {
    await sac?.close();
  });
  /** The hand-written routes' table and the roles the console operations declare. */
  const restTable = (): Record<string, Access> => ({ ...REST_ACCESS, ...restAccess(sac.sac.operations) });
  const trpcTable = (): Record<string, Access> => ({ ...TRPC_ACCESS, ...trpcAccess(sac.sac.operations) });

  it('lists in rbac.table.ts only what no operation declares', () => {
    expect(Object.keys(REST_ACCESS).filter((r) => r in restAccess(sac.sac.operations))).toEqual([]);
    expect(Object.keys(TRPC_ACCESS).filter((p) => p in trpcAccess(sac.sac.operations))).toEqual([]);
  });

  it('declares the access of every REST route and tRPC procedure, and nothing that is gone', () => {
    const routes = restRoutes(sac.sac.app);
    const procedures = Object.keys(trpcProcedures(sac.sac.trpcRouter));
    const rest = restTable();
    const trpc = trpcTable();
    expect(routes.filter((r) => !(r in rest)), 'REST routes neither declared nor in rbac.table.ts').toEqual([]);
    expect(Object.keys(rest).filter((r) => !routes.includes(r)), 'declared or listed REST routes that do not exist').toEqual([]);
    expect(procedures.filter((p) => !(p in trpc)), 'tRPC procedures neither declared nor in rbac.table.ts').toEqual([]);
    expect(Object.keys(trpc).filter((p) => !procedures.includes(p)), 'declared or listed procedures that do not exist').toEqual([]);
  });

  it('enforces the declared access on every REST route for every kind of caller', async () => {
    const mismatches: string[] = [];
    const table = restTable();
    for (const route of restRoutes(sac.sac.app)) {
      const access = table[route];
      if (!access) continue;
      const [method, pattern] = route.split(' ');
      for (const who of PRINCIPALS) {
        const status = await statusOf(`${sac.url}${concretePath(pattern)}`, method, credentials[who]);
        if (outcome(status) !== expected(access, who)) mismatches.push(`${route} as ${who}: ${status}, expected ${expected(access, who)}`);
        await renewAfterSignOut(route, who);
      }
    }
    expect(mismatches).toEqual([]);
  }, WALK_TIMEOUT_MS);

  it('enforces the declared access on every tRPC procedure for every kind of caller', async () => {
    const mismatches: string[] = [];
    const table = trpcTable();
    for (const [path, type] of Object.entries(trpcProcedures(sac.sac.trpcRouter))) {
      const access = table[path];
      if (!access || type === 'subscription') continue;
      const url = type === 'query' ? `${sac.url}/trpc/${path}?input=${encodeURIComponent('{}')}` : `${sac.url}/trpc/${path}`;
      for (const who of PRINCIPALS) {
        const status = await statusOf(url, type === 'query' ? 'GET' : 'POST', credentials[who]);
        if (outcome(status) !== expected(access, who)) mismatches.push(`${path} as ${who}: ${status}, expected ${expected(access, who)}`);
        await renewAfterSignOut(path, who);
      }
    }
    expect(mismatches).toEqual([]);
  }, WALK_TIMEOUT_MS);
});
