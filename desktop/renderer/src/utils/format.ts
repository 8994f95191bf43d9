/**
 * The console's one way to write dates: day-month-year and a 24-hour clock in the console's
 * language (en "23/11/2026, 10:56:40", ru "23.11.2026, 10:56:40"), whatever the browser's locale.
 */
export function localeTag(locale: string): string {
  return locale === 'ru' ? 'ru-RU' : 'en-GB';
}

function valid(iso: string | number | null | undefined): Date | null {
  if (iso === null || iso === undefined || iso === '') return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

const DATE = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
const TIME = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;

/** Local date and time, seconds included (SOC timelines need them). */
export function formatDateTime(iso: string | number | null | undefined, locale: string): string {
  const d = valid(iso);
  if (!d) return iso ? String(iso) : '—';
  return d.toLocaleString(localeTag(locale), { ...DATE, ...TIME, second: '2-digit' });
}

/** Local calendar date; a bare `YYYY-MM-DD` day is shown as that day, not shifted by the zone. */
export function formatDate(value: string | number | null | undefined, locale: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const [y, m, d] = value.split('-').map(Number);
    return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(localeTag(locale), { ...DATE, timeZone: 'UTC' });
  }
  const d = valid(value);
  return d ? d.toLocaleDateString(localeTag(locale), DATE) : '—';
}

/** Local hours and minutes ("09:00"), for chart axes. */
export function formatTime(iso: string | number | null | undefined, locale: string): string {
  const d = valid(iso);
  return d ? d.toLocaleTimeString(localeTag(locale), TIME) : '—';
}

/** A number with the language's digit grouping. */
export function formatNumber(n: number, locale: string): string {
  return n.toLocaleString(localeTag(locale));
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

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant (plus `plusMs`) as the browser's local `YYYY-MM-DDTHH:mm:ss`, what the Events `from`/`to` filters hold. */
export function localSeconds(iso: string, plusMs = 0): string {
  const d = new Date(Date.parse(iso) + plusMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The typing pattern of a date field in the console language, e.g. "dd.mm.yyyy hh:mm". */
export function inputPattern(locale: string, withTime: boolean): string {
  const date = locale === 'ru' ? 'дд.мм.гггг' : 'dd/mm/yyyy';
  return withTime ? `${date} ${locale === 'ru' ? 'чч:мм' : 'hh:mm'}` : date;
}

/**
 * A local date (`YYYY-MM-DD`) or date-time (`YYYY-MM-DDTHH:mm[:ss]`) as typed in the console
 * language's order: day, month, year, then an optional 24-hour time.
 */
export function toInputText(value: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (!m) return '';
  const sep = locale === 'ru' ? '.' : '/';
  const date = `${m[3]}${sep}${m[2]}${sep}${m[1]}`;
  if (!m[4]) return date;
  return `${date} ${m[4]}:${m[5]}${m[6] && m[6] !== '00' ? `:${m[6]}` : ''}`;
}

/**
 * Reads a typed date (or date and time): the console language's order as `toInputText` writes it
 * (day, month, year; any of . / - as separators) or ISO 8601 (`2026-11-27 10:00`,
 * `2026-11-27T10:00`). Null when it is not a real date. Both are the console's local time.
 */
export function fromInputText(text: string, withTime: boolean): string | null {
  const local = /^\s*(\d{1,2})[./-](\d{1,2})[./-](\d{4})(?:[ ,T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(text);
  const iso = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(text);
  const m = local ? [local[1], local[2], local[3], local[4], local[5], local[6]] : iso ? [iso[3], iso[2], iso[1], iso[4], iso[5], iso[6]] : null;
  if (!m) return null;
  const [day, month, year] = [Number(m[0]), Number(m[1]), Number(m[2])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  if (!withTime) return m[3] ? null : date;
  const [h, min, sec] = [Number(m[3] ?? 0), Number(m[4] ?? 0), Number(m[5] ?? 0)];
  if (h > 23 || min > 59 || sec > 59) return null;
  return `${date}T${pad(h)}:${pad(min)}:${pad(sec)}`;
}

/**
 * The typed text with the part under the caret (day, month, year, hour or minute) moved by
 * `delta`, the other parts carried (31/12 + 1 day is 01/01 of the next year). Null when the text
 * is not a date.
 */
export function stepInputText(text: string, caret: number, delta: number, locale: string, withTime: boolean): string | null {
  const value = fromInputText(text, withTime);
  if (value === null) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = value.split(/[-T:]/).map(Number);
  const isoOrder = /^\s*\d{4}-/.test(text);
  const before = text.slice(0, caret).replace(/^\s+/, '');
  const index = before.split(/[./\- T:,]+/).length - 1;
  const parts = isoOrder ? ['year', 'month', 'day', 'hour', 'minute'] : ['day', 'month', 'year', 'hour', 'minute'];
  const part = parts[Math.min(index, withTime ? 4 : 2)];
  const at = new Date(y, mo - 1, d, h, mi, s);
  if (part === 'year') at.setFullYear(at.getFullYear() + delta);
  else if (part === 'month') at.setMonth(at.getMonth() + delta);
  else if (part === 'day') at.setDate(at.getDate() + delta);
  else if (part === 'hour') at.setHours(at.getHours() + delta);
  else at.setMinutes(at.getMinutes() + delta);
  const next = localValue(at.getTime(), withTime);
  return isoOrder ? next.replace('T', ' ').replace(/:00$/, '') : toInputText(next, locale);
}

/** A local `YYYY-MM-DD` (or `YYYY-MM-DDTHH:mm:ss`) of an instant, in the console's zone. */
export function localValue(ms: number, withTime: boolean): string {
  const d = new Date(ms);
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return withTime ? `${date}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` : date;
}

/**
 * The console's time zone, the one every typed and shown time is in: the IANA name and its
 * current offset, "Europe/Moscow, UTC+3".
 */
export function consoleZone(nowMs: number): string {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = -new Date(nowMs).getTimezoneOffset();
  const sign = offset < 0 ? '−' : '+';
  const abs = Math.abs(offset);
  const hours = Math.floor(abs / 60);
  const minutes = abs % 60;
  const label = offset === 0 ? 'UTC' : `UTC${sign}${hours}${minutes ? `:${pad(minutes)}` : ''}`;
  return name === 'UTC' || name === 'Etc/UTC' ? label : `${name}, ${label}`;
}
