#!/usr/bin/env node
/**
 * Draws the PWA icons (192, 512 and a 512 maskable) as PNGs into desktop/renderer/public/icons/:
 * a shield on the console's dark blue, rendered pixel by pixel with 4×4 supersampling and written
 * with zlib. No downloads, no image libraries. Run it again after changing the drawing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'desktop', 'renderer', 'public', 'icons');
const BACKGROUND = [0x0f, 0x1b, 0x2d];
const SHIELD = [0x2f, 0x6f, 0xed];
const MARK = [0xff, 0xff, 0xff];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What colour the point (u, v) in [0,1]² has; `inset` shrinks the shield into the maskable safe zone. */
function colourAt(u, v, inset) {
  const x = (u - 0.5) / (1 - 2 * inset);
  const y = (v - 0.5) / (1 - 2 * inset) + 0.5;
  // Shield: straight top half, then sides curving to a point at the bottom.
  const top = 0.14;
  const halfWidth = y < 0.55 ? 0.34 : 0.34 * Math.sqrt(Math.max(0, 1 - ((y - 0.55) / 0.33) ** 2));
  const inShield = y >= top && y <= 0.88 && Math.abs(x) <= halfWidth;
  if (!inShield) return BACKGROUND;
  // A check mark: two thick strokes.
  const d1 = distanceToSegment(x, y, -0.16, 0.5, -0.04, 0.62);
  const d2 = distanceToSegment(x, y, -0.04, 0.62, 0.18, 0.36);
  return Math.min(d1, d2) < 0.045 ? MARK : SHIELD;
}

function distanceToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function draw(size, inset) {
  const rgba = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const acc = [0, 0, 0];
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const c = colourAt((px + (sx + 0.5) / S) / size, (py + (sy + 0.5) / S) / size, inset);
          for (let i = 0; i < 3; i++) acc[i] += c[i];
        }
      }
      const o = (py * size + px) * 4;
      for (let i = 0; i < 3; i++) rgba[o + i] = Math.round(acc[i] / (S * S));
      rgba[o + 3] = 255;
    }
  }
  return png(size, rgba);
}

mkdirSync(OUT, { recursive: true });
for (const [name, size, inset] of [
  ['icon-192.png', 192, 0],
  ['icon-512.png', 512, 0],
  ['icon-maskable-512.png', 512, 0.1],
  ['apple-touch-icon.png', 180, 0.04],
]) {
  writeFileSync(path.join(OUT, name), draw(size, inset));
  process.stdout.write(`wrote desktop/renderer/public/icons/${name}\n`);
}
