import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces as dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('lint messages cite docs/STYLE.md', () => {
  it('names only sections that exist, and the lint cites at least one', () => {
    const sections = new Set(
      read('docs/STYLE.md')
        .split('\n')
        .filter((line) => /^#{2,3} /.test(line))
        .map((line) => anchor(line.replace(/^#+ /, ''))),
    );
    const cited = ['eslint.config.js', 'scripts/eslint/daemon-imports.mjs'].flatMap((file) =>
      [...read(file).matchAll(/docs\/STYLE\.md#([\w-]+)/g)].map((m) => ({ file, section: m[1] })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((c) => !sections.has(c.section))).toEqual([]);
  });
});
