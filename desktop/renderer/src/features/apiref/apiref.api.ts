import { apiUrl, requestJson } from '../../api/http';

/** The daemon's OpenAPI document (public): what the reference page reads and links. */
export const OPENAPI_PATH = 'api/v1/openapi.json';
export const openApiUrl = () => apiUrl(OPENAPI_PATH);

interface DocumentedOperation {
  summary?: string;
  description?: string;
  security?: unknown[];
  'x-operation'?: string;
  'x-trpc'?: string;
}
export interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, DocumentedOperation>>;
  'x-trpc-only'?: { id: string; kind: 'query' | 'mutation'; role: 'public' | 'operator' | 'admin'; summary: string }[];
}

/** One row of the reference: a REST route (with its tRPC procedure) or a tRPC-only procedure. */
export interface ReferenceRow {
  id: string;
  method: string;
  path: string | null;
  trpc: string | null;
  /** Who may call: public, operator (admin or monitor) or admin. */
  role: 'public' | 'operator' | 'admin' | 'agent';
  summary: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The role a documented route states: none needed, an agent key, or the `Role:` line of its description. */
function roleOf(op: DocumentedOperation): ReferenceRow['role'] {
  if (Array.isArray(op.security) && op.security.length === 0) return 'public';
  if (JSON.stringify(op.security ?? []).includes('agentKey')) return 'agent';
  return op.description?.startsWith('Role: admin.') ? 'admin' : 'operator';
}

/** The document's operations as rows, by path then method, the tRPC-only procedures after them. */
export function referenceRows(doc: OpenApiDocument): ReferenceRow[] {
  const rest = Object.entries(doc.paths)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({
        id: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        path,
        trpc: item[m]['x-trpc'] ?? null,
        role: roleOf(item[m]),
        summary: item[m].summary ?? '',
      })),
    );
  const trpcOnly = (doc['x-trpc-only'] ?? []).map((o) => ({ id: o.id, method: o.kind === 'query' ? 'query' : 'mutation', path: null, trpc: o.id, role: o.role, summary: o.summary }));
  return [...rest, ...trpcOnly];
}

export const apirefApi = {
  document: () => requestJson<OpenApiDocument>('GET', OPENAPI_PATH, { auth: false }),
};
