/** The daemon's QR code SVG as an image URL: shown in an <img>, so the markup never enters the page. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
