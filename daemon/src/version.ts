import { readFileSync } from 'node:fs';

/** SAC's version, from package.json (found from both the source tree and dist/). */
export const SAC_VERSION: string = (() => {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();
