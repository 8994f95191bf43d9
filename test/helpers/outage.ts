import net from 'node:net';
import { postEvent, type TestSac } from './daemon.js';
import { buildEvent } from './events.js';

export interface Answer {
  event_id: string;
  status: number;
  retryAfter: string | null;
  at: number;
}

/** Agents posting events back to back until stopped; every answer is kept. */
export function load(sac: TestSac, workers: number) {
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const event = buildEvent();
      try {
        const res = await postEvent(sac.url, sac.apiKey, event);
        answers.push({ event_id: event.event_id, status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
      } catch {
        answers.push({ event_id: event.event_id, status: 0, retryAfter: null, at: Date.now() });
      }
      // An agent spools and retries after a failure: keep the outage's request rate modest.
      if (answers.at(-1)!.status !== 201) await new Promise((r) => setTimeout(r, 100));
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export async function health(sac: TestSac): Promise<{ status: number; body: { status?: string; problem?: string } }> {
  const res = await fetch(`${sac.url}/health`);
  return { status: res.status, body: (await res.json()) as { status?: string; problem?: string } };
}

/** The acknowledged (201) events the store does not have, each described for the failure message. */
export async function missingAcknowledged(sac: TestSac, answers: Answer[], describe: (a: Answer) => string): Promise<string[]> {
  const missing: string[] = [];
  for (const a of answers) if (a.status === 201 && !(await sac.sac.store.events.byId(a.event_id))) missing.push(describe(a));
  return missing;
}

/**
 * A loopback TCP forwarder that keeps one port for a server that is stopped and started again.
 * A restarted server cannot be trusted to get its old port back while other tests pick free ports
 * at the same time; clients connect here, and `target` is set to wherever the server listens now.
 * While the target is down every connection is refused at once, as the stopped server's would be.
 */
export async function stablePort(target: number): Promise<{ port: number; target: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const state = { target };
  const server = net.createServer((client) => {
    const upstream = net.connect(state.target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get target() {
      return state.target;
    },
    set target(port: number) {
      state.target = port;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
