/** Local date and time, seconds included (SOC timelines need them). */
export function formatDateTime(iso: string | null | undefined, locale: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(locale === 'ru' ? 'ru-RU' : 'en-GB', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** "5 min ago" / "через 3 ч" relative to `nowMs`. */
export function formatRelative(iso: string | null | undefined, nowMs: number, locale: string): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  let diffS = Math.round((t - nowMs) / 1000);
  // The shared clock ticks every 15 s and server clocks drift a little: a moment "in 3 s" is now.
  if (diffS > 0 && diffS < 60) diffS = 0;
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
  const abs = Math.abs(diffS);
  if (abs < 60) return rtf.format(diffS, 'second');
  if (abs < 3600) return rtf.format(Math.round(diffS / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(diffS / 3600), 'hour');
  return rtf.format(Math.round(diffS / 86_400), 'day');
}

/** A wait such as "4 min 10 s" / "4 мин 10 с". */
export function formatWait(seconds: number, locale: string): string {
  const s = Math.max(0, Math.ceil(seconds));
  const m = Math.floor(s / 60);
  const rest = s % 60;
  const [mu, su] = locale === 'ru' ? ['мин', 'с'] : ['min', 's'];
  if (m === 0) return `${rest} ${su}`;
  return rest === 0 ? `${m} ${mu}` : `${m} ${mu} ${rest} ${su}`;
}

/**
 * One CSV field (RFC 4180), with formula-looking cells defused for spreadsheet programs. A program
 * that splits on `;` (the list separator of many locales, Russian among them) or ignores quotes
 * would start a new cell after a `;` or `,` inside the value, so a formula character there is
 * defused too, and `;` forces quoting like `,` does.
 */
export function csvField(value: unknown): string {
  let s = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  s = s.replace(/(^|[;,])(\s*)(?=[=+\-@\t\r])/g, "$1$2'");
  return /[",;\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[]): string {
  return values.map(csvField).join(',');
}
