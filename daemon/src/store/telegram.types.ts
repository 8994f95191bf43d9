/** A console user linked to a Telegram account (acknowledge from Telegram acts as this user). */
export interface TelegramLinkRecord {
  user_id: string;
  telegram_user_id: string;
  telegram_username: string | null;
  linked_ms: number;
}

export interface TelegramRepo {
  /** Stores a one-time link code (its SHA-256) for the user, replacing their earlier code (expired ones are pruned by retention). */
  putLinkCode(hash: string, userId: string, expiresMs: number): Promise<void>;
  /** Deletes the code and returns its user when it existed and had not expired; atomic. */
  consumeLinkCode(hash: string, nowMs: number): Promise<string | null>;
  /** Deletes codes expired at `nowMs`; returns how many. */
  pruneLinkCodes(nowMs: number): Promise<number>;
  /** Links the accounts, replacing any earlier link of either side. */
  link(record: TelegramLinkRecord): Promise<void>;
  byUser(userId: string): Promise<TelegramLinkRecord | null>;
  byTelegramUser(telegramUserId: string): Promise<TelegramLinkRecord | null>;
  unlink(userId: string): Promise<boolean>;
}
