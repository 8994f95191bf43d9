import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { trimmedMatch, trimmedNote, trimmedText } from './trimmed-text.js';

/** Whether the JSON Schema the OpenAPI document carries for `schema` accepts `text`. */
function documentAccepts(schema: z.ZodType, text: string): boolean {
  const doc = z.toJSONSchema(schema, { io: 'input' }) as { maxLength?: number; pattern?: string };
  if (doc.maxLength !== undefined && [...text].length > doc.maxLength) return false;
  return doc.pattern === undefined || new RegExp(doc.pattern, 'u').test(text);
}

describe('trimmed text: the daemon and the OpenAPI document agree on the text as sent', () => {
  const cases: [string, z.ZodType, string[]][] = [
    ['trimmedText(8)', trimmedText(8), ['x', ' x ', '\t', '', '   ', '12345678', ' 12345678', '\f1234567', '\ufeffab\u3000']],
    ['trimmedNote(8)', trimmedNote(8), ['', ' ', '12345678', '\f12345678', ' note ']],
    ['trimmedMatch(6 digits)', trimmedMatch(/^\d{6}$/, 16, 'six digits'), ['123456', ' 123456\n', '\ufeff123456', '12345', 'a123456', '123 456']],
  ];
  it.each(cases)('%s', (_name, schema, samples) => {
    for (const text of samples) expect(schema.safeParse(text).success, JSON.stringify(text)).toBe(documentAccepts(schema, text));
  });

  it('stores the trimmed text and says why blank or long text is refused', () => {
    expect(trimmedText(8).parse('\t ok \n')).toBe('ok');
    expect(trimmedText(8).safeParse(' \t').error?.issues[0].message).toBe('must not be empty');
    expect(trimmedText(8).safeParse(' 12345678').error?.issues[0].message).toBe('must be at most 8 characters');
    expect(trimmedMatch(/^\d{6}$/, 16, 'six digits').parse(' 123456 ')).toBe('123456');
  });

  it('refuses a pattern the document could not carry', () => {
    expect(() => trimmedMatch(/^a$/i, 4, 'a')).toThrow(/without flags/);
    expect(() => trimmedMatch(/a/, 4, 'a')).toThrow(/anchored/);
  });
});
