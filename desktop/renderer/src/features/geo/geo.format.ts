let flagsDrawn: boolean | undefined;

/**
 * Whether this system draws flag emoji. Without a flag glyph (Windows, a Linux without a colour
 * emoji font) a pair of regional indicators is drawn as two letters or boxes, twice as wide as one.
 */
function flagGlyphs(): boolean {
  if (flagsDrawn === undefined) {
    const ctx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    if (ctx) ctx.font = '32px sans-serif';
    flagsDrawn = ctx !== null && ctx.measureText('\u{1F1E9}\u{1F1EA}').width < 1.5 * ctx.measureText('\u{1F1E9}').width;
  }
  return flagsDrawn;
}

/** A country's flag as regional-indicator emoji (no images), or '' where the system has no flag glyphs (the code is shown anyway). */
export function flagEmoji(country: string): string {
  return /^[A-Z]{2}$/.test(country) && flagGlyphs() ? String.fromCodePoint(...[...country].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65)) : '';
}

const names = new Map<string, Intl.DisplayNames>();

/** A country's name in the console language (`Intl`), or the code itself. */
export function countryName(country: string, locale: string): string {
  let n = names.get(locale);
  if (!n) names.set(locale, (n = new Intl.DisplayNames([locale], { type: 'region' })));
  try {
    return n.of(country) ?? country;
  } catch {
    return country;
  }
}

/** `AS13335 Cloudflare, Inc.` */
export function asnLabel(asn: number, org: string | null): string {
  return org ? `AS${asn} ${org}` : `AS${asn}`;
}
