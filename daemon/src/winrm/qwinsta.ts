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

/**
 * Parses `qwinsta` output in any language: the header has six columns with `ID` third, names
 * and types are left-aligned under their headers and the ID is right-aligned, so each row is cut
 * at the header's column starts and the ID and state are read between the user name and type.
 * Lines that fit no row shape are skipped.
 */
export function parseQwinsta(text: string): SessionView[] {
  const lines = text.replace(/\r/g, '').split('\n');
  const headerIndex = lines.findIndex((l) => /\bID\b/.test(l));
  if (headerIndex < 0) return [];
  const header = lines[headerIndex]!;
  const cols = [...header.matchAll(/\S+/g)].map((m) => m.index);
  if (cols.length < 6) return [];
  const [, userStart, , , typeStart, deviceStart] = cols as [number, number, number, number, number, number];
  const sessions: SessionView[] = [];
  for (const line of lines.slice(headerIndex + 1)) {
    if (!line.trim()) continue;
    const sessionName = line.slice(1, userStart).trim();
    const middle = line.slice(userStart, typeStart);
    const m = /^(.*?)\s*(?<!\S)(\d+)\s+(\S+)\s*$/.exec(middle);
    if (!m) continue;
    sessions.push({
      session_name: sessionName,
      username: m[1]!.trim(),
      id: Number(m[2]),
      state: normaliseState(m[3]!),
      type: line.slice(typeStart, deviceStart).trim(),
      device: line.slice(deviceStart).trim(),
    });
  }
  return sessions;
}
