import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './util.js';

export interface WebhookDelivery {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The X-SAC-Signature header matched the HMAC-SHA256 of the raw body under the peer's secret. */
  signatureValid: boolean;
}

/**
 * A loopback webhook receiver that checks `X-SAC-Signature: sha256=<hex>` against the raw bytes.
 * `failNext` answers 503 that many times; `down` answers 500 to everything; `hang` never answers;
 * `delayMs` slows every answer and `maxInFlight` records the most requests open at once; with
 * `gate` set, each request is held until that many are open at once (at most `GATE_MAX_MS`), so a
 * sender that could send them together is seen doing so however far apart it got them to send.
 */
/** Longest a gated request is held waiting for the others. */
const GATE_MAX_MS = 2500;

export async function startWebhookPeer(secret: string) {
  const deliveries: WebhookDelivery[] = [];
  const failures: number[] = [];
  const state = { down: false, failNext: 0, hang: false, delayMs: 0, gate: 0, inFlight: 0, maxInFlight: 0 };
  const gateWaiters: (() => void)[] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    if (state.hang) return;
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    if (state.gate > 0) {
      if (state.inFlight >= state.gate) for (const open of gateWaiters.splice(0)) open();
      else await new Promise<void>((r) => {
        gateWaiters.push(r);
        setTimeout(r, GATE_MAX_MS);
      });
    }
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    state.inFlight--;
    if (state.down || state.failNext > 0) {
      if (state.failNext > 0) state.failNext--;
      failures.push(Date.now());
      res.writeHead(state.down ? 500 : 503).end('unavailable');
      return;
    }
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
    const got = Buffer.from(String(req.headers['x-sac-signature'] ?? ''));
    const signatureValid = got.length === expected.length && timingSafeEqual(got, expected);
    deliveries.push({ at: Date.now(), headers: req.headers, body: JSON.parse(raw.toString('utf8')), signatureValid });
    res.writeHead(signatureValid ? 204 : 401).end();
  });
  const url = await listen(server);
  return { url: `${url}/hooks/sac`, deliveries, failures, state, close: () => closeServer(server) };
}
export type WebhookPeer = Awaited<ReturnType<typeof startWebhookPeer>>;
