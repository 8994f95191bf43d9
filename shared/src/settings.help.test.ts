import { describe, expect, it } from 'vitest';
import { SETTINGS_HELP, type FieldHelp } from './settings.help.js';
import { SETTINGS_CATEGORIES, SETTINGS_SCHEMAS } from './settings.schema.js';

describe('settings help texts', () => {
  it('describe every category and every field in English and Russian, none empty', () => {
    for (const lang of ['en', 'ru'] as const) {
      for (const c of SETTINGS_CATEGORIES) {
        const h = SETTINGS_HELP[lang][c];
        expect(h.title.length, `${lang} ${c}`).toBeGreaterThan(1);
        expect(h.help.length, `${lang} ${c}`).toBeGreaterThan(20);
        const keys = Object.keys((SETTINGS_SCHEMAS[c] as unknown as { shape: object }).shape);
        expect(Object.keys(h.fields).sort(), `${lang} ${c}`).toEqual(keys.sort());
        for (const [k, f] of Object.entries(h.fields as Record<string, FieldHelp>)) {
          expect(f.label, `${lang} ${c}.${k}`).not.toBe('');
          expect(f.help.length, `${lang} ${c}.${k}`).toBeGreaterThan(5);
        }
      }
    }
  });
});
