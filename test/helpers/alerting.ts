import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { startTelegramPeer, type TelegramPeer } from '../peers/telegram.peer.js';
import { trpc } from '../peers/trpc.js';
import { adminToken, api } from './auth.js';
import { TestClock, waitFor } from './clock.js';
import { ingestEvent, startTestSac, type TestSac } from './daemon.js';
import type { StoreKind } from './stores.js';

export const ALERT_BOT_TOKEN = '777000:alerting-test-bot-token';
export const ALERT_CHAT = '-100777';
export const MIN = 60_000;

/** A daemon whose one notification channel is a Telegram Bot API peer on loopback, on a clock the test moves. */
export type AlertingSac = { t: TestSac; tg: TelegramPeer; token: string; clock: TestClock; close(): Promise<void> };

/**
 * Starts the Telegram peer and a daemon that notifies only through it (long polling every second,
 * the escalation check every 200 ms, fast delivery, no daily report), signed in as the admin.
 */
export async function startAlertingSac(kind: StoreKind): Promise<AlertingSac> {
  const clock = new TestClock();
  const tg = await startTelegramPeer(ALERT_BOT_TOKEN);
  const t = await startTestSac(
    kind,
    {
      SAC_TELEGRAM_BOT_TOKEN: ALERT_BOT_TOKEN,
      SAC_TELEGRAM_CHAT_IDS: ALERT_CHAT,
      SAC_TELEGRAM_API_BASE: tg.url,
      SAC_NOTIFY_CHANNELS: 'telegram',
      SAC_TELEGRAM_POLL_TIMEOUT_SECONDS: '1',
      SAC_ESCALATION_CHECK_SECONDS: '0.2',
      SAC_PUBLIC_URL: 'http://sac.example.test:8080',
      ...FAST_DELIVERY,
      ...reportNeverDue(),
    },
    { clock },
  );
  const token = await adminToken(t);
  return {
    t,
    tg,
    token,
    clock,
    close: async () => {
      await t.close();
      await tg.close();
    },
  };
}

/** Starts an alerting daemon before the suite's tests (handing it to `use`) and closes it after them. */
export function useAlertingSac(kind: StoreKind, use: (a: AlertingSac) => void): void {
  let a: AlertingSac | undefined;
  beforeAll(async () => {
    a = await startAlertingSac(kind);
    use(a);
  });
  afterAll(async () => {
    await a?.close();
  });
}

export type Delivery = { id: string; channel: string; topic: string; ref: string; status: string; last_error: string | null; content: any };

/** The delivery log's rows about `ref` (an event or problem id). */
export async function deliveries(t: TestSac, token: string, ref: string): Promise<Delivery[]> {
  const res = await trpc(t, token, 'query', 'notifications.deliveries', { limit: 500 });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.error)}`);
  return (res.data as Delivery[]).filter((d) => d.ref === ref);
}

/** A critical event on `hostname` (always notified) with a unique title; returns its id and title. */
export async function critical(t: TestSac, hostname: string): Promise<{ id: string; title: string }> {
  const title = `Root shell ${randomUUID().slice(0, 8)}`;
  const id = await ingestEvent(t, {
    type: 'privilege.sudo.command',
    category: 'privilege',
    severity: 'critical',
    title,
    host: { hostname, os_family: 'linux' },
    source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
    occurred_at: new Date().toISOString(),
  });
  return { id, title };
}

/** Waits for the problem the critical events on `hostname` opened. */
export async function problemOf(t: TestSac, token: string, hostname: string): Promise<{ id: string; status: string; acknowledged_by: string | null }> {
  return waitFor(`problem on ${hostname}`, async () => {
    const res = await api(t, 'GET', `/api/v1/problems?host=${hostname}&type=privilege.sudo`, { token });
    return res.status === 200 && res.body.items.length > 0 ? res.body.items[0] : null;
  });
}
