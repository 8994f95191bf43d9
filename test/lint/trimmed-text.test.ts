import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('limits and patterns on trimmed text, as npm run lint checks them', () => {
  it('refuses a limit or pattern after .trim() in shared and daemon sources and accepts the trimmed-text helpers', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const lint = async (file: string, code: string) =>
      (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages.map((m) => m.ruleId);
    const bare = "import { z } from 'zod';\nexport const S = z.string().trim().min(1).max(64);\n";
    expect(await lint('shared/src/probe.ts', bare)).toEqual(['no-restricted-syntax']);
    expect(await lint('daemon/src/reports/probe.ts', bare)).toContain('no-restricted-syntax');
    expect(await lint('shared/src/probe.ts', "import { trimmedText } from './trimmed-text.js';\nexport const S = trimmedText(64);\n")).toEqual([]);
    expect(await lint('shared/src/probe.ts', "import { z } from 'zod';\nexport const S = z.string().trim().max(500);\n")).toEqual(['no-restricted-syntax']);
    expect(await lint('shared/src/probe.ts', "import { z } from 'zod';\nexport const S = z.string().trim().regex(/^\\d{6}$/);\n")).toEqual(['no-restricted-syntax']);
    // Limits first, trimming last: the limits hold for the text as sent, as the document says.
    expect(await lint('shared/src/probe.ts', "import { z } from 'zod';\nexport const S = z.string().max(500).trim();\n")).toEqual([]);
  });
});
