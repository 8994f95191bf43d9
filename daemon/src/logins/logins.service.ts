import type { UserLoginsView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import {
  baselineIncrements,
  baselineOverflow,
  baselineView,
  loginSighting,
  loginUser,
  SUCCESS_LOGIN_TYPES,
  USER_LOGINS_LIMIT,
  type CorrelationSettingsSource,
  type UserLoginSighting,
} from '../correlation/index.js';
import type { BaselineValue, Store } from '../store/index.js';

/** Stored successful logins read per page when rebuilding the baselines. */
const REBUILD_PAGE = 2000;

/** What a rebuild of the baselines read and wrote. */
export interface BaselineRebuild {
  /** Successful logins of the learning period read from the stored events. */
  logins: number;
  users: number;
  values: number;
  took_ms: number;
}

/**
 * Login intelligence for the console: a user's logins across the fleet with their baseline, and
 * the rebuild of every baseline from the stored events (an admin's repair after a restore or a
 * change of the learning period).
 */
export class LoginsService {
  private rebuilding: Promise<BaselineRebuild> | null = null;

  constructor(
    private readonly store: Pick<Store, 'events' | 'loginBaselines' | 'userLogins'>,
    private readonly clock: Clock,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
  ) {}

  /**
   * The user as any agent names them, normalised (`DOMAIN\\user`, `user@domain`, case). `within`:
   * the host ids a caller limited to host groups may see (null: every host); such a caller gets the
   * user's logins on those hosts (of the newest 500) and no baseline, which counts the whole fleet.
   */
  async user(raw: string, within: ReadonlySet<string> | null = null): Promise<UserLoginsView> {
    const user = loginUser({ user: raw });
    const [settings, logins, values] = await Promise.all([this.settings(), this.store.userLogins.list(user, USER_LOGINS_LIMIT), this.store.loginBaselines.of([user])]);
    return {
      user,
      baseline: within ? null : baselineView(user, values, settings.crossHost.newSource.learningMs),
      logins: logins.filter((l) => !within || within.has(l.host_id)).map(({ user: _user, occurred_ms, ...l }) => ({ ...l, at: new Date(occurred_ms).toISOString() })),
    };
  }

  /**
   * Replaces every baseline with one replayed from the stored successful logins (as long as events
   * are retained), read oldest first a page at a time: each value counted the way ingest counts it
   * (starting afresh after a gap of the learning period), then those not seen within the learning
   * period dropped and the rest capped like the stored ones. Memory holds one entry per user and
   * value. One rebuild at a time: a second call while one runs gets its result. Logins committed
   * while it runs may be counted twice or not at all; it is a repair, not a routine.
   */
  async rebuildBaselines(actor: Actor): Promise<BaselineRebuild> {
    this.rebuilding ??= this.rebuild(actor).finally(() => {
      this.rebuilding = null;
    });
    return this.rebuilding;
  }

  private async rebuild(actor: Actor): Promise<BaselineRebuild> {
    const started = this.clock.now();
    const { learningMs } = (await this.settings()).crossHost.newSource;
    const counts = new Map<string, BaselineValue>();
    let after: { occurred_ms: number; event_id: string } | undefined;
    let read = 0;
    for (;;) {
      const page = await this.store.events.search({
        types: [...SUCCESS_LOGIN_TYPES],
        to_ms: started + 1,
        hidden: [],
        limit: REBUILD_PAGE,
        order: 'asc',
        after,
      });
      read += page.length;
      baselineIncrements(
        page.flatMap((e) => {
          const l: UserLoginSighting | null = loginSighting(e, false);
          return l ? [l] : [];
        }),
        learningMs,
        counts,
      );
      if (page.length < REBUILD_PAGE) break;
      const last = page[page.length - 1];
      after = { occurred_ms: last.occurred_ms, event_id: last.event_id };
    }
    // What the stores keep: values seen within the learning period, at most BASELINE_KEEP per user and dimension.
    const recent = [...counts.values()].filter((v) => v.last_ms >= started - learningMs);
    const dropped = new Set(baselineOverflow(recent));
    const values = recent.filter((v) => !dropped.has(v));
    await this.store.loginBaselines.replaceAll(values);
    const result: BaselineRebuild = {
      logins: read,
      users: values.filter((v) => v.dim === 'user').length,
      values: values.length,
      took_ms: this.clock.now() - started,
    };
    await this.audit.record({ action: 'logins.baselines_rebuilt', actor, target: null, details: { ...result } });
    return result;
  }
}
