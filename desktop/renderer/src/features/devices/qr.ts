import qrcode from 'qrcode-generator';

/** A QR code of `text` as an image data URL (the console's CSP allows `data:` images). */
export function qrDataUrl(text: string, cellSize = 5): string {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  return qr.createDataURL(cellSize, 4);
}
