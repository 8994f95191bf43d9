import type { SessionView } from '../../../shared/src/index.js';

/*
 * Russian Windows prints localised state names; they are mapped to the English ones so that the
 * console and the rules see one vocabulary whatever the host's language.
 */
const STATE_NAMES: Record<string, string> = {
  активно: 'Active',
  диск: 'Disc',
  отключено: 'Disc',
  прием: 'Listen',
  приём: 'Listen',
  ожидание: 'Listen',
  подкл: 'Conn',
  подключено: 'Conn',
  тень: 'Shadow',
  простой: 'Idle',
  сбой: 'Down',
  иниц: 'Init',
};

const ENGLISH_STATES = new Set(['active', 'conn', 'connq', 'shadow', 'disc', 'idle', 'listen', 'reset', 'down', 'init']);

function normaliseState(raw: string): string {
  const key = raw.toLowerCase();
  if (ENGLISH_STATES.has(key)) return key === 'connq' ? 'ConnQ' : key.charAt(0).toUpperCase() + key.slice(1);
  return STATE_NAMES[key] ?? raw;
}

/** qwinsta prints lines of about 80 characters; longer lines are no session rows and are skipped unread. */
const MAX_LINE = 512;

const isSpace = (c: string) => c === ' ' || c === '\t';
const isDigit = (c: string) => c >= '0' && c <= '9';

/**
 * The user name, id and state between the user-name and type columns: the state is the last
 * word, the id the all-digit word before it, the user name whatever precedes. One pass from the
 * end (no backtracking pattern): null when the shape does not fit.
 */
function splitMiddle(middle: string): { username: string; id: number; state: string } | null {
  let end = middle.length;
  while (end > 0 && isSpace(middle[end - 1]!)) end--;
  let i = end;
  while (i > 0 && !isSpace(middle[i - 1]!)) i--;
  const state = middle.slice(i, end);
  if (!state || i === 0) return null;
  const stateStart = i;
  while (i > 0 && isSpace(middle[i - 1]!)) i--;
  if (i === stateStart) return null;
  const idEnd = i;
  while (i > 0 && isDigit(middle[i - 1]!)) i--;
  if (i === idEnd || (i > 0 && !isSpace(middle[i - 1]!))) return null;
  return { username: middle.slice(0, i).trim(), id: Number(middle.slice(i, idEnd)), state };
}

/**
 * Parses `qwinsta` output in any language: the header has six columns with `ID` third, names
 * and types are left-aligned under their headers and the ID is right-aligned, so each row is cut
 * at the header's column starts and the ID and state are read between the user name and type.
 * Lines that fit no row shape, and lines longer than any qwinsta prints, are skipped; the work is
 * linear in the length of the text whatever it holds (agents post it, so it is untrusted).
 */
export function parseQwinsta(text: string): SessionView[] {
  const lines = text.split('\n').map((l) => (l.length > MAX_LINE ? '' : l.replace(/\r/g, '')));
  const headerIndex = lines.findIndex((l) => /\bID\b/.test(l));
  if (headerIndex < 0) return [];
  const header = lines[headerIndex]!;
  const cols = [...header.matchAll(/\S+/g)].map((m) => m.index);
  if (cols.length < 6) return [];
  const [, userStart, , , typeStart, deviceStart] = cols as [number, number, number, number, number, number];
  const sessions: SessionView[] = [];
  for (const line of lines.slice(headerIndex + 1)) {
    if (!line.trim()) continue;
    const middle = splitMiddle(line.slice(userStart, typeStart));
    if (!middle) continue;
    sessions.push({
      session_name: line.slice(1, userStart).trim(),
      username: middle.username,
      id: middle.id,
      state: normaliseState(middle.state),
      type: line.slice(typeStart, deviceStart).trim(),
      device: line.slice(deviceStart).trim(),
    });
  }
  return sessions;
}
