import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EventSchema } from './event.schema';

describe('docs/sample-event.json (the README sends it as written)', () => {
  it('is a valid schema 1.0 event', () => {
    const sample: unknown = JSON.parse(readFileSync(new URL('../../docs/sample-event.json', import.meta.url), 'utf8'));
    const result = EventSchema.safeParse(sample);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.success).toBe(true);
  });
});
