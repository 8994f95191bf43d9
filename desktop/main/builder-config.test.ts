import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The `key: value` lines of one top-level mapping of electron-builder.yml (scripts/check-electron-builder.mjs validates the whole file). */
function topLevelMapping(yaml: string, key: string): Record<string, string> {
  const lines = yaml.split('\n');
  const start = lines.indexOf(`${key}:`);
  if (start < 0) return {};
  const out: Record<string, string> = {};
  for (const line of lines.slice(start + 1)) {
    const m = /^ {2}([A-Za-z]+):\s*(\S+)\s*$/.exec(line);
    if (!m) break;
    out[m[1]] = m[2];
  }
  return out;
}

describe('electron-builder.yml', () => {
  it('flips the Electron fuses that turn the packaged app into a general Node runtime or debugger', () => {
    const yaml = readFileSync(path.resolve('electron-builder.yml'), 'utf8');
    expect(yaml).toMatch(/^asar: true$/m);
    expect(topLevelMapping(yaml, 'electronFuses')).toEqual({
      runAsNode: 'false',
      enableCookieEncryption: 'true',
      enableNodeOptionsEnvironmentVariable: 'false',
      enableNodeCliInspectArguments: 'false',
      enableEmbeddedAsarIntegrityValidation: 'true',
      onlyLoadAppFromAsar: 'true',
      grantFileProtocolExtraPrivileges: 'false',
    });
  });
});
