import { createHash } from 'node:crypto';
import type { SessionUser } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import { randomBase62 } from '../random.js';
import type { StreamTicketsRepo, TicketSession, UsersRepo } from '../store/index.js';

const TICKET_TTL_MS = 30_000;
const PRUNE_EVERY_MS = 60_000;

const hashTicket = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/**
 * Single-use tickets for `GET /api/v1/stream/events?ticket=` (EventSource cannot send headers):
 * kept hashed in the store for 30 s, so any daemon on the store can redeem one, and only once.
 */
export class StreamTickets {
  private lastPruneMs = 0;

  constructor(
    private readonly repo: StreamTicketsRepo,
    private readonly users: UsersRepo,
    private readonly clock: Clock,
  ) {}

  /** A ticket for `user`; `session` (the asking token's) makes the stream end when that token expires. */
  async issue(user: SessionUser, session: TicketSession | null): Promise<{ ticket: string; expires_at: string }> {
    const now = this.clock.now();
    if (now - this.lastPruneMs > PRUNE_EVERY_MS) {
      this.lastPruneMs = now;
      await this.repo.prune(now);
    }
    const ticket = randomBase62(43);
    await this.repo.insert(hashTicket(ticket), user.id, now + TICKET_TTL_MS, session);
    return { ticket, expires_at: new Date(now + TICKET_TTL_MS).toISOString() };
  }

  /**
   * The active user a ticket was issued to and the session it came from; null when unknown, used,
   * expired, the user is no longer active or the session's token has expired meanwhile.
   */
  async redeem(ticket: string): Promise<{ user: SessionUser; session: TicketSession | null } | null> {
    if (ticket.length > 256) return null;
    const now = this.clock.now();
    const redeemed = await this.repo.consume(hashTicket(ticket), now);
    if (!redeemed || (redeemed.session && redeemed.session.ends_ms <= now)) return null;
    const user = await this.users.byId(redeemed.user_id);
    return user && user.active ? { user: { id: user.id, username: user.username, role: user.role }, session: redeemed.session } : null;
  }

  /** Ms from now until `endsMs` by this service's clock. */
  remainingMs(endsMs: number): number {
    return endsMs - this.clock.now();
  }
}
