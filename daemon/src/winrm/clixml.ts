/*
 * PowerShell started without a console writes its error stream as CLIXML (`#< CLIXML` then
 * serialized objects). Operators need the messages, so the error strings are pulled out and
 * PowerShell's `_xHHHH_` escapes (line breaks mostly) undone. Anything else passes unchanged.
 */

function unescapePs(s: string): string {
  return s
    .replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

export function clixmlToText(stderr: string): string {
  const start = stderr.indexOf('#< CLIXML');
  if (start < 0) return stderr;
  const before = stderr.slice(0, start);
  const errors = [...stderr.slice(start).matchAll(/<S S="Error">([\s\S]*?)<\/S>/g)].map((m) => unescapePs(m[1]!));
  return before + errors.join('');
}
