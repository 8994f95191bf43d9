import type { AnyOperation } from '../../daemon/src/http/index.js';

/**
 * The REST request for an operation's input, built from its declaration as a client reads the
 * document: path fields into the path, the rest into the query (GET, DELETE) or the body.
 */
export function restRequest(op: AnyOperation & { path: string }, input: Record<string, unknown> = {}): { path: string; body?: unknown } {
  const rest = { ...input };
  const path = op.path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
    const value = String(rest[name]);
    delete rest[name];
    return encodeURIComponent(value);
  });
  if (op.method === 'GET' || op.method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return { path: query ? `${path}?${query}` : path };
  }
  return { path, body: op.restBody === undefined ? rest : rest[op.restBody] };
}
