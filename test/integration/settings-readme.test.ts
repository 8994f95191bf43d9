import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsReadmeTable } from '../../shared/src/index.js';

describe('README settings table', () => {
  it('is the settings help texts of shared/, word for word', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
    const start = readme.indexOf('| category | what it sets |');
    expect(start).toBeGreaterThan(0);
    const table = readme.slice(start, readme.indexOf('\n\n', start));
    // On a mismatch, the expected table is printed: paste it into the README.
    expect(table).toBe(settingsReadmeTable());
  });
});
