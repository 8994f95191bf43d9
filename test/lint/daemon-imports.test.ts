import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The rule ids ESLint (with the project's own eslint.config.js) reports for `code` at `file`. */
async function ruleIds(eslint: ESLint, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.map((m) => m.ruleId ?? m.message);
}

describe("the daemon's import directions, as npm run lint checks them", () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it('refuses a deep import into another folder and accepts the same name through its index.ts', async () => {
    expect(await ruleIds(eslint, 'daemon/src/reports/probe.ts', "export { AuditService } from '../audit/audit.service.js';\n")).toEqual([
      'daemon-imports/folder-boundaries',
    ]);
    expect(await ruleIds(eslint, 'daemon/src/reports/probe.ts', "import type { AuditService } from '../audit/audit.service.js';\nexport type A = AuditService;\n")).toEqual([
      'daemon-imports/folder-boundaries',
    ]);
    expect(await ruleIds(eslint, 'daemon/src/reports/probe.ts', "export { AuditService } from '../audit/index.js';\n")).toEqual([]);
    // Inside one folder (subfolders included) any file may import any other.
    expect(await ruleIds(eslint, 'daemon/src/actions/probe.ts', "export { parseQwinsta } from './winrm/qwinsta.js';\n")).toEqual([]);
    // A file directly in daemon/src is a module of its own.
    expect(await ruleIds(eslint, 'daemon/src/reports/probe.ts', "export { AppError } from '../errors.js';\n")).toEqual([]);
  });

  it('refuses a feature folder in the store and any folder in config.ts', async () => {
    expect(await ruleIds(eslint, 'daemon/src/store/probe.ts', "import type { NotifyService } from '../notify/index.js';\nexport type N = NotifyService;\n")).toEqual([
      'daemon-imports/folder-boundaries',
    ]);
    expect(await ruleIds(eslint, 'daemon/src/store/sqlite/probe.ts', "export { bucketOf } from '../rollup-fold.js';\n")).toEqual([]);
    expect(await ruleIds(eslint, 'daemon/src/config.ts', "export { SettingsService } from './settings/index.js';\n")).toEqual([
      'daemon-imports/folder-boundaries',
    ]);
  });

  it('refuses an import cycle', async () => {
    // sac.ts imports errors.ts, so errors.ts importing sac.ts closes a loop.
    expect(await ruleIds(eslint, 'daemon/src/errors.ts', "export { startSac } from './sac.js';\n")).toContain('import-x/no-cycle');
  });
});
