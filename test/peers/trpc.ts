import type { TestSac } from '../helpers/daemon.js';

/** One tRPC call over HTTP (no batching, no transformer): the data, or the error shape with its HTTP status. */
export async function trpc(
  t: Pick<TestSac, 'url'>,
  token: string | null,
  kind: 'query' | 'mutation',
  path: string,
  input?: unknown,
): Promise<{ status: number; data: any; error: any }> {
  const query = kind === 'query' && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : '';
  const res = await fetch(`${t.url}/trpc/${path}${query}`, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: kind === 'mutation' ? JSON.stringify(input ?? {}) : undefined,
  });
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  return { status: res.status, data: body.result?.data, error: body.error };
}
