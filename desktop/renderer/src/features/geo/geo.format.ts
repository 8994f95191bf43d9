/** A country's flag as regional-indicator emoji (no images); systems without flag glyphs show the two letters. */
export function flagEmoji(country: string): string {
  return /^[A-Z]{2}$/.test(country) ? String.fromCodePoint(...[...country].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65)) : '';
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
