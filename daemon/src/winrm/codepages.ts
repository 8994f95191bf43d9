/**
 * OEM code pages that cmd.exe writes its output in: 437 (US English) and 866 (Russian). Node's
 * TextDecoder has neither, so the upper halves are tabled here; the lower half is ASCII.
 */
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■ ";
const CP866_HIGH =
  "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмноп░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀рстуфхцчшщъыьэюяЁёЄєЇїЎў°∙·√№¤■ ";

export type OemCodePage = 437 | 866;

const HIGH: Record<OemCodePage, string> = { 437: CP437_HIGH, 866: CP866_HIGH };

/** Decodes OEM code page bytes to a string. */
export function decodeOem(bytes: Uint8Array, codepage: OemCodePage): string {
  const high = HIGH[codepage];
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    out += b < 0x80 ? String.fromCharCode(b) : high[b - 0x80]!;
  }
  return out;
}
