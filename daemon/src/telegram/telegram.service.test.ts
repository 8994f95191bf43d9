import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotificationPolicySchema, TelegramSettingsSchema, type ApprovalRequestView, type ProblemView, type SettingsValue } from '../../../shared/src/index.js';
import { ManualClock } from '../../../test/helpers/clock.js';
import { openFreshStore } from '../../../test/helpers/stores.js';
import { AuditService } from '../audit/index.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import type { TelegramBotApi, TelegramUpdate } from './telegram.bot.js';
import { TelegramService } from './telegram.service.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 5, 3, 9, 0, 0);
const FENCE = { token: 1, check: async () => {} };
const SECRET = 'webhook-secret-token';
const BOB = { id: 'u-bob', username: 'bob', role: 'monitor' as const };

/** A Bot API that hands out `inbox` on the next getUpdates and records every call SAC makes. */
function fakeBot() {
  const calls: { method: string; args: unknown[] }[] = [];
  const inbox: TelegramUpdate[] = [];
  const api: TelegramBotApi = {
    async getUpdates(_cfg, offset) {
      calls.push({ method: 'getUpdates', args: [offset] });
      return inbox.splice(0);
    },
    async answerCallbackQuery(_cfg, id, text) {
      calls.push({ method: 'answerCallbackQuery', args: [id, text] });
    },
    async editMessageText(_cfg, chatId, messageId, html, keyboard) {
      calls.push({ method: 'editMessageText', args: [chatId, messageId, html, keyboard] });
    },
    async sendText(_cfg, chatId, text) {
      calls.push({ method: 'sendText', args: [chatId, text] });
    },
    async sendButtons(_cfg, chatId, html, keyboard) {
      calls.push({ method: 'sendButtons', args: [chatId, html, keyboard] });
    },
  };
  return { api, calls, inbox };
}

const press = (updateId: number, fromId: number, data: string): TelegramUpdate => ({
  update_id: updateId,
  callback_query: { id: `q${updateId}`, from: { id: fromId }, data, message: { message_id: 7, chat: { id: 100 }, text: 'Problem: RDP brute force on RDS01' } },
});

describe('TelegramService with a fake Bot API', () => {
  let store: Store;
  let clock: ManualClock;
  let bot: ReturnType<typeof fakeBot>;
  let problemCalls: string[];
  let approvalCalls: string[];
  let telegram: TelegramService;

  beforeEach(async () => {
    store = await openFreshStore('sqlite');
    clock = new ManualClock(T0);
    bot = fakeBot();
    problemCalls = [];
    approvalCalls = [];
    await store.users.insert({ ...BOB, display_name: null, active: true, password_hash: 'x', token_version: 0, created_ms: T0, updated_ms: T0, last_login_ms: null });
    const settings: Record<string, unknown> = {
      telegram: TelegramSettingsSchema.parse({ bot_token: '123:token', api_base: 'http://127.0.0.1:1' }),
      notification_policy: NotificationPolicySchema.parse({}),
    };
    const transition = (status: string) => async (id: string) => {
      problemCalls.push(`${status} ${id}`);
      if (id === 'p-done') throw new AppError('problem/invalid_transition', 'The problem is already resolved');
      return { id, status } as ProblemView;
    };
    telegram = new TelegramService({
      telegram: store.telegram,
      users: store.users,
      settingsRepo: store.settings,
      settings: { get: async <K extends keyof typeof settings>(key: K) => settings[key] as SettingsValue<never> },
      problems: { acknowledge: transition('acknowledged'), resolve: transition('resolved') },
      approvals: {
        async approve(id, _note, actor) {
          approvalCalls.push(`approve ${id} by ${actor.user.username}`);
          if (id === 'a-own') throw new AppError('approval/own_request', 'You cannot decide your own request: another person must');
          return { id, state: 'approved', result: { ok: true, detail: 'logoff queued' } } as ApprovalRequestView;
        },
        async deny(id, _note, actor) {
          approvalCalls.push(`deny ${id} by ${actor.user.username}`);
          return { id, state: 'denied', result: null } as ApprovalRequestView;
        },
      },
      api: bot.api,
      audit: new AuditService(store.audit, clock, logger),
      clock,
      logger,
      pollTimeoutS: 1,
    });
  });

  afterEach(async () => {
    await store.close();
  });

  async function linkBob(fromId: number) {
    const { code } = await telegram.createLinkCode(BOB, { user: BOB, ip: '127.0.0.1' });
    await telegram.handleWebhook({ update_id: 1, message: { message_id: 1, chat: { id: fromId }, from: { id: fromId, username: 'bob_tg' }, text: `/link ${code}` } }, SECRET, SECRET);
  }

  it('links a Telegram account with a one-time code, once, and answers in the chat', async () => {
    await linkBob(555);

    expect(bot.calls).toEqual([{ method: 'sendText', args: [555, 'Linked to SAC user bob. Problem buttons now act as this user.'] }]);
    expect(await telegram.status(BOB)).toMatchObject({ linked: true, telegram_username: 'bob_tg' });
  });

  it('refuses an expired link code', async () => {
    const { code } = await telegram.createLinkCode(BOB, { user: BOB, ip: '127.0.0.1' });
    clock.advance(10 * 60_000 + 1);
    await telegram.handleWebhook({ update_id: 1, message: { message_id: 1, chat: { id: 555 }, from: { id: 555 }, text: `/link ${code}` } }, SECRET, SECRET);

    expect(bot.calls.map((c) => c.args[1])).toEqual([expect.stringContaining('unknown or expired')]);
    expect((await telegram.status(BOB)).linked).toBe(false);
  });

  it('applies a button press as the linked user, edits the message to say who acted, and moves the shared offset', async () => {
    await linkBob(555);
    bot.calls.length = 0;
    bot.inbox.push(press(41, 555, 'ack:p-1'));

    await telegram.pollOnce(FENCE);

    expect(problemCalls).toEqual(['acknowledged p-1']);
    const edit = bot.calls.find((c) => c.method === 'editMessageText')!;
    expect(edit.args[2]).toContain('Acknowledged by bob');
    // Only Resolve is left under an acknowledged problem.
    expect(edit.args[3]).toEqual([[expect.objectContaining({ callback_data: 'res:p-1' })]]);
    expect(bot.calls.at(-1)).toEqual({ method: 'answerCallbackQuery', args: ['q41', 'Acknowledged'] });
    expect((await store.settings.get('internal.telegram_updates_offset'))?.value).toBe('42');
  });

  it('tells an unlinked presser to link first and a late presser why nothing changed, acting on nothing', async () => {
    await linkBob(555);
    bot.calls.length = 0;
    bot.inbox.push(press(50, 999, 'res:p-1'), press(51, 555, 'res:p-done'));

    await telegram.pollOnce(FENCE);

    expect(problemCalls).toEqual(['resolved p-done']);
    expect(bot.calls).toEqual([
      { method: 'getUpdates', args: [0] },
      { method: 'answerCallbackQuery', args: ['q50', expect.stringContaining('Link your Telegram account first')] },
      { method: 'answerCallbackQuery', args: ['q51', 'The problem is already resolved'] },
    ]);
  });

  it('asks linked approvers with Approve / Deny buttons and decides a press as the linked user', async () => {
    await linkBob(555);
    bot.calls.length = 0;
    const request = { id: 'a-1', summary: 'Log off session 2 on RDS01', requested_by: 'anna', reason: 'stale <admin> session', expires_at: '2026-06-03T12:30:00.000Z' } as ApprovalRequestView;

    await telegram.askApproval(request, ['u-bob', 'u-unlinked']);

    expect(bot.calls).toHaveLength(1);
    const [chat, html, keyboard] = bot.calls[0]!.args as [string, string, { callback_data: string }[][]];
    expect(chat).toBe('555');
    expect(html).toContain('stale &lt;admin&gt; session');
    expect(keyboard[0]!.map((b) => b.callback_data)).toEqual(['apv:a-1', 'dny:a-1']);

    bot.inbox.push(press(50, 555, 'apv:a-1'), press(51, 555, 'apv:a-own'), press(52, 555, 'dny:a-2'));
    await telegram.pollOnce(FENCE);

    expect(approvalCalls).toEqual(['approve a-1 by bob', 'approve a-own by bob', 'deny a-2 by bob']);
    const answers = bot.calls.filter((c) => c.method === 'answerCallbackQuery').map((c) => c.args);
    expect(answers).toEqual([
      ['q50', 'Approved'],
      ['q51', 'You cannot decide your own request: another person must'],
      ['q52', 'Denied'],
    ]);
    expect(bot.calls.find((c) => c.method === 'editMessageText')!.args[2]).toContain('Approved by bob: logoff queued');
  });

  it('refuses a webhook call without the secret token', async () => {
    await expect(telegram.handleWebhook(press(60, 555, 'ack:p-1'), 'wrong', SECRET)).rejects.toMatchObject({ code: 'auth/unauthorized' });
    expect(bot.calls).toEqual([]);
  });
});
