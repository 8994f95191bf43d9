import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApprovalRequestView, Language, SessionUser, TelegramLinkCode, TelegramLinkStatus } from '../../../shared/src/index.js';
import type { ApprovalsService } from '../approvals/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import { escapeHtml, type InlineButton, phrases } from '../notify/index.js';
import type { Fence } from '../jobs/index.js';
import type { ProblemsService } from '../problems/index.js';
import type { SettingsService } from '../settings/index.js';
import type { SettingsRepo, TelegramRepo, UsersRepo } from '../store/index.js';
import type { BotConfig, TelegramBotApi, TelegramUpdate } from './telegram.bot.js';

/** Lifetime of a link code. */
const LINK_CODE_TTL_MS = 10 * 60_000;
/** Unambiguous letters and digits (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 10;
/** Store key of the next update id to fetch, shared by the daemons (whoever leads continues). */
const OFFSET_KEY = 'internal.telegram_updates_offset';
const CALL_TIMEOUT_MS = 10_000;

const hashCode = (code: string) => createHash('sha256').update(code.toUpperCase()).digest('hex');

const REPLIES = {
  en: {
    linked: (u: string) => `Linked to SAC user ${u}. Problem buttons now act as this user.`,
    bad_code: 'That link code is unknown or expired. Create a new one in the SAC console (Profile).',
    not_linked: 'Link your Telegram account first: SAC console → Profile → Telegram.',
    inactive: 'Your SAC user is disabled.',
    acknowledged: 'Acknowledged',
    resolved: 'Resolved',
    ack_by: (u: string) => `✔ Acknowledged by ${u}`,
    res_by: (u: string) => `✅ Resolved by ${u}`,
    unknown: 'Unknown button',
    failed: 'SAC could not apply this; try the console',
    approval: (summary: string, by: string, reason: string, until: string) => `<b>Approval needed</b>\n${summary}\nRequested by ${by}: ${reason}\nExpires ${until} UTC`,
    approve: 'Approve',
    deny: 'Deny',
    approved: 'Approved',
    denied: 'Denied',
    approved_by: (u: string, result: string) => `✔ Approved by ${u}: ${result}`,
    denied_by: (u: string) => `✖ Denied by ${u}`,
  },
  ru: {
    linked: (u: string) => `Связано с пользователем SAC ${u}. Кнопки проблем теперь действуют от его имени.`,
    bad_code: 'Код привязки неизвестен или истёк. Создайте новый в консоли SAC (Профиль).',
    not_linked: 'Сначала привяжите Telegram: консоль SAC → Профиль → Telegram.',
    inactive: 'Ваш пользователь SAC отключён.',
    acknowledged: 'Принято',
    resolved: 'Решено',
    ack_by: (u: string) => `✔ Принял ${u}`,
    res_by: (u: string) => `✅ Решил ${u}`,
    unknown: 'Неизвестная кнопка',
    failed: 'SAC не смог это применить; откройте консоль',
    approval: (summary: string, by: string, reason: string, until: string) => `<b>Нужно подтверждение</b>\n${summary}\nЗапросил ${by}: ${reason}\nИстекает ${until} UTC`,
    approve: 'Одобрить',
    deny: 'Отклонить',
    approved: 'Одобрено',
    denied: 'Отклонено',
    approved_by: (u: string, result: string) => `✔ Одобрил ${u}: ${result}`,
    denied_by: (u: string) => `✖ Отклонил ${u}`,
  },
} as const;

/**
 * Telegram as a way back into SAC: users link their Telegram account with a one-time code from the
 * console profile (`/link <code>` to the bot); presses of the Acknowledge / Resolve buttons under
 * problem messages arrive as updates — by long polling `getUpdates` on the leader, or by webhook
 * when SAC has a public https URL — and are applied as the linked user, with the same role rules
 * and 409 guard as the console. The message is edited to show who acted; the press is answered.
 */
export class TelegramService {
  private readonly abort = new AbortController();

  constructor(
    private readonly deps: {
      telegram: TelegramRepo;
      users: UsersRepo;
      settingsRepo: SettingsRepo;
      settings: Pick<SettingsService, 'get'>;
      problems: Pick<ProblemsService, 'acknowledge' | 'resolve'>;
      approvals: Pick<ApprovalsService, 'approve' | 'deny'>;
      /** The Bot API (`telegramBotApi`). */
      api: TelegramBotApi;
      audit: Pick<AuditService, 'record'>;
      clock: Clock;
      logger: Logger;
      pollTimeoutS: number;
    },
  ) {}

  /** Stops a long poll in flight (shutdown). */
  stop(): void {
    this.abort.abort();
  }

  private async bot(): Promise<{ cfg: BotConfig; lang: Language } | null> {
    const [t, policy] = await Promise.all([this.deps.settings.get('telegram'), this.deps.settings.get('notification_policy')]);
    if (!t.bot_token) return null;
    return { cfg: { apiBase: t.api_base, botToken: t.bot_token, timeoutMs: CALL_TIMEOUT_MS }, lang: policy.language };
  }

  async createLinkCode(user: SessionUser, actor: Actor): Promise<TelegramLinkCode> {
    let code = '';
    for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const expiresMs = this.deps.clock.now() + LINK_CODE_TTL_MS;
    await this.deps.telegram.putLinkCode(hashCode(code), user.id, expiresMs);
    await this.deps.audit.record({ action: 'telegram.link_code_created', actor, target: `user:${user.id}` });
    return { code, expires_at: new Date(expiresMs).toISOString(), bot_command: `/link ${code}` };
  }

  async status(user: SessionUser): Promise<TelegramLinkStatus> {
    const link = await this.deps.telegram.byUser(user.id);
    return {
      linked: link !== null,
      telegram_username: link?.telegram_username ?? null,
      linked_at: link ? new Date(link.linked_ms).toISOString() : null,
    };
  }

  async unlink(user: SessionUser, actor: Actor): Promise<TelegramLinkStatus> {
    if (await this.deps.telegram.unlink(user.id)) {
      await this.deps.audit.record({ action: 'telegram.unlinked', actor, target: `user:${user.id}` });
    }
    return this.status(user);
  }

  /** Asks each approver with a linked Telegram account, in a private message with Approve / Deny buttons. */
  async askApproval(request: ApprovalRequestView, approverIds: readonly string[]): Promise<void> {
    const bot = await this.bot();
    if (!bot) return;
    const r = REPLIES[bot.lang];
    const until = request.expires_at.slice(0, 16).replace('T', ' ');
    const html = r.approval(escapeHtml(request.summary), escapeHtml(request.requested_by), escapeHtml(request.reason), until);
    const keyboard: InlineButton[][] = [[{ text: r.approve, callback_data: `apv:${request.id}` }, { text: r.deny, callback_data: `dny:${request.id}` }]];
    for (const id of approverIds) {
      const link = await this.deps.telegram.byUser(id);
      if (!link) continue;
      // A private chat's id is the user's id: the approver started the bot to link.
      await this.deps.api.sendButtons(bot.cfg, link.telegram_user_id, html, keyboard).catch((err: unknown) =>
        this.deps.logger.warn({ err: errorSummary(err), user: id }, 'approval request not sent to Telegram'),
      );
    }
  }

  /**
   * The `telegram_updates` leader job: one long poll. The fence is checked after it — the poll
   * waits up to its timeout, long enough for the lease to pass to another daemon — so a replaced
   * poller handles nothing; a button press is an idempotent problem transition either way.
   */
  async pollOnce(fence: Fence): Promise<void> {
    const bot = await this.bot();
    if (!bot || this.abort.signal.aborted) return;
    const stored = await this.deps.settingsRepo.get(OFFSET_KEY);
    const offset = stored ? Number(stored.value) : 0;
    let updates: TelegramUpdate[];
    try {
      updates = await this.deps.api.getUpdates(bot.cfg, offset, this.deps.pollTimeoutS, this.abort.signal);
    } catch (err) {
      if (this.abort.signal.aborted) return;
      throw err;
    }
    if (!Array.isArray(updates) || updates.length === 0) return;
    await fence.check();
    for (const u of updates) await this.handle(u, bot);
    const next = Math.max(...updates.map((u) => u.update_id)) + 1;
    await this.deps.settingsRepo.put({ key: OFFSET_KEY, value: String(next), updated_ms: this.deps.clock.now(), updated_by: null });
  }

  /** Webhook mode: one update POSTed by Telegram with the secret token header. */
  async handleWebhook(update: TelegramUpdate, secretGiven: string | undefined, secretExpected: string): Promise<void> {
    const a = Buffer.from(secretGiven ?? '');
    const b = Buffer.from(secretExpected);
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AppError('auth/unauthorized', 'Wrong webhook secret token');
    const bot = await this.bot();
    if (bot) await this.handle(update, bot);
  }

  /** Handles one update; never throws (a bad update must not stop the others). */
  private async handle(u: TelegramUpdate, bot: { cfg: BotConfig; lang: Language }): Promise<void> {
    try {
      if (u.callback_query) await this.onPress(u.callback_query, bot);
      else if (u.message?.text) await this.onMessage(u.message as Required<Pick<NonNullable<TelegramUpdate['message']>, 'text'>> & NonNullable<TelegramUpdate['message']>, bot);
    } catch (err) {
      this.deps.logger.warn({ update_id: u.update_id, err: errorSummary(err) }, 'telegram update not handled');
    }
  }

  private async onMessage(m: NonNullable<TelegramUpdate['message']> & { text: string }, bot: { cfg: BotConfig; lang: Language }): Promise<void> {
    const match = /^\/(?:link|start)(?:@\w+)?\s+([A-Za-z0-9]{6,32})\s*$/.exec(m.text.trim());
    if (!match || !m.from) return;
    const r = REPLIES[bot.lang];
    const userId = await this.deps.telegram.consumeLinkCode(hashCode(match[1]!), this.deps.clock.now());
    const user = userId ? await this.deps.users.byId(userId) : null;
    if (!user || !user.active) {
      await this.deps.api.sendText(bot.cfg, m.chat.id, r.bad_code);
      return;
    }
    await this.deps.telegram.link({
      user_id: user.id,
      telegram_user_id: String(m.from.id),
      telegram_username: m.from.username ?? m.from.first_name ?? null,
      linked_ms: this.deps.clock.now(),
    });
    await this.deps.audit.record({
      action: 'telegram.linked',
      actor: { user: { id: user.id, username: user.username, role: user.role }, ip: 'telegram' },
      target: `user:${user.id}`,
    });
    await this.deps.api.sendText(bot.cfg, m.chat.id, r.linked(user.username));
  }

  private async onPress(q: NonNullable<TelegramUpdate['callback_query']>, bot: { cfg: BotConfig; lang: Language }): Promise<void> {
    const r = REPLIES[bot.lang];
    const m = /^(ack|res|apv|dny):([A-Za-z0-9_-]{1,60})$/.exec(q.data ?? '');
    if (!m) return void (await this.deps.api.answerCallbackQuery(bot.cfg, q.id, r.unknown));
    const link = await this.deps.telegram.byTelegramUser(String(q.from.id));
    if (!link) return void (await this.deps.api.answerCallbackQuery(bot.cfg, q.id, r.not_linked));
    const user = await this.deps.users.byId(link.user_id);
    if (!user || !user.active) return void (await this.deps.api.answerCallbackQuery(bot.cfg, q.id, r.inactive));
    // Acknowledge and resolve are open to every console role (admin and monitor), as in the console.
    const actor: Actor = { user: { id: user.id, username: user.username, role: user.role }, ip: 'telegram' };
    if (m[1] === 'apv' || m[1] === 'dny') return this.onDecision(q, bot, m[1], m[2]!, actor as Actor & { user: SessionUser });
    const [action, problemId] = [m[1] as 'ack' | 'res', m[2]!];
    let problem;
    try {
      problem = action === 'ack' ? await this.deps.problems.acknowledge(problemId, undefined, actor) : await this.deps.problems.resolve(problemId, undefined, actor);
    } catch (err) {
      // The 409 (already acknowledged / resolved) and 404 explain themselves to the person who pressed.
      const text = err instanceof AppError && err.kind === 'user' ? err.message : r.failed;
      return void (await this.deps.api.answerCallbackQuery(bot.cfg, q.id, text));
    }
    if (q.message) {
      const by = action === 'ack' ? r.ack_by(user.username) : r.res_by(user.username);
      const html = `${escapeHtml(q.message.text ?? '')}\n\n<b>${escapeHtml(by)}</b>`.slice(0, 4096);
      const p = phrases(bot.lang);
      // After an acknowledge only Resolve is left; after a resolve nothing.
      const keyboard: InlineButton[][] = problem.status === 'acknowledged' ? [[{ text: p.button_resolve, callback_data: `res:${problemId}` }]] : [];
      await this.deps.api.editMessageText(bot.cfg, q.message.chat.id, q.message.message_id, html, keyboard).catch((err: unknown) =>
        this.deps.logger.warn({ err: errorSummary(err) }, 'telegram message not edited'),
      );
    }
    await this.deps.api.answerCallbackQuery(bot.cfg, q.id, action === 'ack' ? r.acknowledged : r.resolved);
  }

  /** An Approve / Deny press: decided as the linked user with the console's rules (never their own request). */
  private async onDecision(
    q: NonNullable<TelegramUpdate['callback_query']>,
    bot: { cfg: BotConfig; lang: Language },
    press: 'apv' | 'dny',
    approvalId: string,
    actor: Actor & { user: SessionUser },
  ): Promise<void> {
    const r = REPLIES[bot.lang];
    let line: string;
    try {
      if (press === 'apv') {
        const decided = await this.deps.approvals.approve(approvalId, undefined, actor);
        line = r.approved_by(actor.user.username, decided.result?.detail ?? '');
      } else {
        await this.deps.approvals.deny(approvalId, undefined, actor);
        line = r.denied_by(actor.user.username);
      }
    } catch (err) {
      const text = err instanceof AppError && err.kind === 'user' ? err.message : r.failed;
      return void (await this.deps.api.answerCallbackQuery(bot.cfg, q.id, text));
    }
    if (q.message) {
      const html = `${escapeHtml(q.message.text ?? '')}\n\n<b>${escapeHtml(line)}</b>`.slice(0, 4096);
      await this.deps.api.editMessageText(bot.cfg, q.message.chat.id, q.message.message_id, html, []).catch((err: unknown) =>
        this.deps.logger.warn({ err: errorSummary(err) }, 'telegram message not edited'),
      );
    }
    await this.deps.api.answerCallbackQuery(bot.cfg, q.id, press === 'apv' ? r.approved : r.denied);
  }
}
