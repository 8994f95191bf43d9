import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../daemon/src/http/index.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';

interface DocumentedOperation {
  summary: string;
  'x-operation'?: string;
  'x-trpc'?: string;
}
interface Document {
  paths: Record<string, Record<string, DocumentedOperation>>;
  'x-trpc-only': { id: string; kind: string; role: string; summary: string }[];
}

// The document is built from the declarations, not the store: SQLite only.
describe('the API reference (OpenAPI document the console links)', () => {
  let t: TestSac;
  beforeAll(async () => {
    t = await startTestSac('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists every declared operation: each REST route under its path and method, the tRPC-only ones apart', async () => {
    const res = await fetch(`${t.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Document;
    const operations = t.sac.operations as readonly AnyOperation[];
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      if (op.path === undefined) {
        expect(doc['x-trpc-only'], op.id).toContainEqual({ id: op.id, kind: op.kind, role: op.role, summary: op.summary });
        continue;
      }
      for (const path of [op.path, ...(op.aliases ?? [])]) {
        const documented = doc.paths[path]?.[op.method.toLowerCase()];
        expect(documented, `${op.method} ${path}`).toMatchObject({ summary: op.summary, 'x-operation': op.id });
        expect(documented?.['x-trpc'], op.id).toBe(op.trpc === false ? undefined : op.id);
      }
    }
    const listed = new Set([
      ...Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => o['x-operation'])),
      ...doc['x-trpc-only'].map((o) => o.id),
    ]);
    expect([...listed].filter((id) => id !== undefined).sort()).toEqual([...new Set(operations.map((op) => op.id))].sort());
    expect(doc.paths['/api/v1/suggestions']?.get).toMatchObject({ 'x-operation': 'suggest.values', 'x-trpc': 'suggest.values' });
  });
});
