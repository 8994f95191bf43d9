import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Fence } from '../jobs/index.js';
import type { Store } from '../store/index.js';

export interface RetentionOptions {
  /** Audit entries older than this are deleted. */
  auditMs: number;
  /** Events that occurred longer ago than this are deleted; null keeps them. */
  eventMs: number | null;
  /** Sign-in failures older than this no longer count (the throttle window): their rows can go. */
  loginWindowMs: number;
  /** Mobile enrollment codes stay listed (used, revoked or expired) this long after they expire. */
  enrollmentCodeHistoryMs: number;
}

export interface RetentionResult {
  audit: number;
  events: number;
  login_throttle: number;
  stream_tickets: 'pruned';
  /** Ended (expired or signed-out) console sessions. */
  sessions: number;
  /** Expired mobile refresh tokens and old enrollment codes. */
  mobile: number;
  telegram_link_codes: number;
  bundle_tokens: number;
}

/**
 * Ended sessions are kept a day: a late sign-out or renewal of one still finds it (and is refused
 * as ended rather than unknown).
 */
const ENDED_SESSION_KEEP_MS = 24 * 3600_000;

/** Events deleted per transaction: a short write lock at a time, so ingest keeps flowing. */
const EVENT_CHUNK = 2000;
/** Chunks per run; what is left waits for the next run. */
const MAX_EVENT_CHUNKS = 50;

/**
 * The retention job's work (run leader-only under a store lease by the job runner): prunes
 * sign-in throttle rows that no longer count, every expiring credential once it is of no use
 * (stream tickets, ended sessions, mobile refresh tokens and enrollment codes, Telegram link
 * codes, agent bundle download tokens), the audit log past its retention, and — only when
 * configured — old events. Dashboard counters (rollups) are kept, so
 * long-range charts stay whole after their events are gone.
 */
export class RetentionService {
  constructor(
    private readonly deps: {
      store: Pick<Store, 'agentUpdates' | 'audit' | 'devices' | 'events' | 'loginThrottle' | 'sessions' | 'streamTickets' | 'telegram'>;
      clock: Clock;
      logger: Logger;
      options: RetentionOptions;
    },
  ) {}

  /**
   * Every delete removes what is past a cutoff, so deleting twice is harmless; the fence is
   * re-checked before each one so a run replaced while paused stops instead of deleting on.
   */
  async run(fence: Fence): Promise<RetentionResult> {
    const { store, clock, logger, options } = this.deps;
    const now = clock.now();
    await fence.check();
    const loginThrottle = await store.loginThrottle.prune(now - options.loginWindowMs, now);
    await fence.check();
    await store.streamTickets.prune(now);
    await fence.check();
    const sessions = await store.sessions.prune(now - ENDED_SESSION_KEEP_MS);
    await fence.check();
    const mobile = await store.devices.prune(now, now - options.enrollmentCodeHistoryMs);
    await fence.check();
    const telegramLinkCodes = await store.telegram.pruneLinkCodes(now);
    await fence.check();
    const bundleTokens = await store.agentUpdates.pruneTokens(now);
    await fence.check();
    const audit = await store.audit.prune(now - options.auditMs);
    let events = 0;
    if (options.eventMs !== null) {
      const before = now - options.eventMs;
      for (let i = 0; i < MAX_EVENT_CHUNKS; i++) {
        await fence.check();
        const n = await store.events.prune(before, EVENT_CHUNK);
        events += n;
        if (n < EVENT_CHUNK) break;
      }
    }
    const result: RetentionResult = {
      audit,
      events,
      login_throttle: loginThrottle,
      stream_tickets: 'pruned',
      sessions,
      mobile,
      telegram_link_codes: telegramLinkCodes,
      bundle_tokens: bundleTokens,
    };
    if (audit + events + loginThrottle + sessions + mobile + telegramLinkCodes + bundleTokens > 0) logger.info(result, 'retention pruned');
    return result;
  }
}
