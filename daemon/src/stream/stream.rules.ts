import { isStreamMessageType, type StreamCounters, type StreamMessage } from '../../../shared/src/index.js';

/** One SSE frame: `id` (omitted for snapshots such as counters), event name, one JSON data line. */
export function sseFrame(message: StreamMessage, id: string | null): Buffer {
  const head = id === null ? '' : `id: ${id}\n`;
  // JSON.stringify escapes newlines, so the payload is always a single data line.
  return Buffer.from(`${head}event: ${message.type}\ndata: ${JSON.stringify(message.data)}\n\n`, 'utf8');
}

export function emptyCounters(): StreamCounters {
  return { events_total: 0, by_severity: { info: 0, warning: 0, high: 0, critical: 0 }, problems_opened: 0 };
}

/** Folds a bus message into the running counters; true when they changed. */
export function foldCounters(counters: StreamCounters, message: StreamMessage): boolean {
  if (message.type === 'event.ingested') {
    counters.events_total++;
    counters.by_severity[message.data.severity]++;
    return true;
  }
  if (message.type === 'problem.opened') {
    counters.problems_opened++;
    return true;
  }
  return false;
}

/**
 * Ms to wait until `intervalMs` after `lastMs` (0 when that has passed or there was no last; never
 * more than `intervalMs`, should the clock be set back): counters frames at least that far apart,
 * a tick at most that long after its first message.
 */
export function spacingDelay(lastMs: number | null, nowMs: number, intervalMs: number): number {
  return lastMs === null ? 0 : Math.min(intervalMs, Math.max(0, lastMs + intervalMs - nowMs));
}

/**
 * Which buffered frames (by the hub's seq) a resuming client gets. Ids are `<boot>.<position>`,
 * where `positionOf(seq)` is the position of the buffered frame `seq` (the seq itself on one
 * daemon; the cluster feed's position on several, nearly increasing): an id of this boot replays
 * the frames after the newest one at or before its position; an id of another boot, or one already
 * evicted, replays the whole buffer (the client missed at least that much); an id newer than
 * anything replays nothing.
 */
export function replayFrom(
  lastEventId: string | null,
  boot: string,
  oldestSeq: number,
  newestSeq: number,
  positionOf: (seq: number) => number = (seq) => seq,
): number | null {
  if (lastEventId === null) return null;
  const m = /^([A-Za-z0-9]+)\.(\d+)$/.exec(lastEventId.trim());
  if (!m || m[1] !== boot) return oldestSeq;
  const position = Number(m[2]);
  let seq = newestSeq;
  while (seq >= oldestSeq && positionOf(seq) > position) seq--;
  return seq >= newestSeq ? null : seq + 1;
}

/** True for bus messages that go to stream clients (internal ones such as `auth.login_locked` never do). */
export function isStreamMessage(message: { type: string }): message is StreamMessage {
  return isStreamMessageType(message.type);
}
