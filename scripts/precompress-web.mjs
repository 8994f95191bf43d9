// Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each script, style sheet and other text
// file of the console's web build, so the daemon sends them compressed without compressing per
// request (daemon/src/server/web.routes.ts picks one by Accept-Encoding). Run by `npm run build:web`.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Extensions worth compressing (images other than SVG and fonts are compressed already). */
export const PRECOMPRESSED_EXTENSIONS = ['.js', '.mjs', '.css', '.svg', '.json', '.webmanifest', '.txt'];
/** Smaller files gain less than a response's headers. */
const MIN_BYTES = 1024;

/** Compresses the text files under `dir`; returns bytes before and after (brotli), for the build log. */
export function precompressDir(dir) {
  const totals = { files: 0, bytes: 0, brotli: 0, gzip: 0 };
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (PRECOMPRESSED_EXTENSIONS.includes(path.extname(entry.name)) && statSync(file).size >= MIN_BYTES) {
        const data = readFileSync(file);
        const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
        const gz = gzipSync(data, { level: 9 });
        writeFileSync(`${file}.br`, br);
        writeFileSync(`${file}.gz`, gz);
        totals.files += 1;
        totals.bytes += data.length;
        totals.brotli += br.length;
        totals.gzip += gz.length;
      }
    }
  };
  walk(dir);
  return totals;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'desktop', 'renderer', 'dist');
  const t = precompressDir(dir);
  const kb = (n) => `${Math.round(n / 1024)} KB`;
  process.stdout.write(`precompressed ${t.files} files: ${kb(t.bytes)} -> ${kb(t.brotli)} brotli, ${kb(t.gzip)} gzip\n`);
}
