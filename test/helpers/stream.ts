import type { TestSac } from './daemon.js';

export interface SseFrame {
  id: string | null;
  event: string;
  data: any;
  /** ms since the stream was opened */
  at: number;
}

export interface OpenStream {
  status: number;
  frames: SseFrame[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Resolves with the first frame matching `pred` (already received or future); rejects after `timeoutMs`. */
  next(pred: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens `GET /api/v1/stream/events` with a Bearer token, a `Cookie` header or a ticket and parses SSE frames as they
 * arrive. `status` is the HTTP status; for non-200 answers no frames are read.
 */
export async function openStream(
  t: Pick<TestSac, 'url'>,
  auth: { token?: string; ticket?: string; cookie?: string; lastEventId?: string; lastEventIdQuery?: string },
): Promise<OpenStream> {
  const controller = new AbortController();
  const url = new URL(`${t.url}/api/v1/stream/events`);
  if (auth.ticket) url.searchParams.set('ticket', auth.ticket);
  if (auth.lastEventIdQuery) url.searchParams.set('last_event_id', auth.lastEventIdQuery);
  const res = await fetch(url, {
    headers: {
      ...(auth.token ? { Authorization: `Bearer ${auth.token}` } : {}),
      ...(auth.cookie ? { Cookie: auth.cookie } : {}),
      ...(auth.lastEventId ? { 'Last-Event-ID': auth.lastEventId } : {}),
    },
    signal: controller.signal,
  });
  const started = Date.now();
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  let resolveEnded!: () => void;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  if (res.status === 200 && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let idx: number;
          while ((idx = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, idx);
            buf = buf.slice(idx + 2);
            const frame: SseFrame = { id: null, event: 'message', data: null, at: Date.now() - started };
            let isFrame = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line);
              else if (line.startsWith('id: ')) frame.id = line.slice(4);
              else if (line.startsWith('event: ')) frame.event = line.slice(7);
              else if (line.startsWith('data: ')) {
                frame.data = JSON.parse(line.slice(6));
                isFrame = true;
              }
            }
            if (isFrame) frames.push(frame);
            for (const w of waiters) w();
          }
        }
      } catch {
        // aborted by close()
      }
      resolveEnded();
      for (const w of waiters) w();
    })();
  } else {
    await res.body?.cancel();
    resolveEnded();
  }
  return {
    status: res.status,
    frames,
    comments,
    ended,
    next(pred, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(pred);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching SSE frame within ${timeoutMs} ms; got ${frames.map((f) => f.event).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      controller.abort();
    },
  };
}
