import type { z } from 'zod';
import type { EventDetailView, EventListQuerySchema, EventView, Page } from '../../../shared/src/index.js';
import type { CorrelationSettingsSource } from '../correlation/index.js';
import { AppError, invalidParameter } from '../errors.js';
import type { EventQuery, Store, StoredEvent } from '../store/index.js';
import { eventView } from './event.views.js';
import { dayRange } from '../../../shared/src/index.js';
import { decodeCursor, encodeCursor, parseInstant } from './query.rules.js';
import { narrowToGroup, type GroupHosts } from '../groups/index.js';

/** Time a free-text search may take before it is refused as too broad. */
export const SEARCH_BUDGET_MS = 2000;

/** Host ids whose hostname contains a text (case-insensitive); the hosts feature provides it. */
export type HostnameResolver = (hostname: string) => Promise<string[]>;

export function eventNotFound(eventId: string): AppError {
  return new AppError('event/not_found', 'No such event', { details: { event_id: eventId } });
}

/** Events: the filtered, paged list (newest occurred first), one event, and views for timelines and the dashboard. */
export class EventsService {
  constructor(
    private readonly store: Pick<Store, 'events'>,
    private readonly settings: CorrelationSettingsSource,
    private readonly hostIdsByName: HostnameResolver,
    private readonly groupHosts: GroupHosts,
  ) {}

  private async views(events: StoredEvent[]): Promise<EventView[]> {
    const flagged = await this.store.events.flapMarked(events.filter((e) => e.type.startsWith('rdg.')).map((e) => e.event_id));
    return events.map((e) => eventView(e, flagged));
  }

  /** `within`: the host ids a caller limited to host groups may see (null: every host). */
  async list(query: z.output<typeof EventListQuerySchema>, within: ReadonlySet<string> | null = null): Promise<Page<EventView>> {
    const settings = await this.settings();
    const q: EventQuery = { hidden: settings.hiddenTypes, limit: query.limit + 1 };
    if (query.host_id) q.host_ids = [query.host_id];
    if (query.hostname) {
      const ids = await this.hostIdsByName(query.hostname);
      q.host_ids = q.host_ids ? q.host_ids.filter((id) => ids.includes(id)) : ids;
    }
    if (query.group) q.host_ids = narrowToGroup(q.host_ids, await this.groupHosts(query.group));
    if (within) q.host_ids = narrowToGroup(q.host_ids, within);
    if (query.severity?.length) q.severities = query.severity;
    if (query.type) q.type_prefix = query.type;
    if (query.q) {
      q.q = query.q;
      q.budget_ms = SEARCH_BUDGET_MS;
    }
    if (query.user) q.actor = query.user;
    if (query.user_exact) {
      if (!query.user) throw invalidParameter('user_exact', 'is only used with user');
      q.actor_exact = true;
    }
    if (query.ip) q.ip = query.ip;
    if (query.country) q.country = query.country;
    if (query.asn !== undefined) q.asn = query.asn;
    if (query.order === 'asc') q.order = 'asc';
    if (query.tz && !query.date) throw invalidParameter('tz', 'is only used with date');
    const bounds: { from_ms?: number; to_ms?: number }[] = [];
    if (query.date) bounds.push(dayRange(query.date, query.tz));
    if (query.from) bounds.push({ from_ms: parseInstant(query.from) });
    if (query.to) bounds.push({ to_ms: parseInstant(query.to) });
    for (const b of bounds) {
      if (b.from_ms !== undefined) q.from_ms = Math.max(q.from_ms ?? -Infinity, b.from_ms);
      if (b.to_ms !== undefined) q.to_ms = Math.min(q.to_ms ?? Infinity, b.to_ms);
    }
    if (query.cursor) {
      q.after = decodeCursor(query.cursor, (v): v is { occurred_ms: number; event_id: string } =>
        typeof v.occurred_ms === 'number' && typeof v.event_id === 'string');
    }
    const none = q.host_ids?.length === 0;
    const [rows, total] = await Promise.all([
      none ? [] : this.store.events.search(q),
      query.total ? (none ? 0 : this.store.events.countMatching(q)) : undefined,
    ]);
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items: await this.views(items),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ occurred_ms: last.occurred_ms, event_id: last.event_id }) : null,
      ...(total !== undefined ? { total } : {}),
    };
  }

  async byId(eventId: string): Promise<EventDetailView> {
    const stored = await this.store.events.byId(eventId);
    if (!stored) throw eventNotFound(eventId);
    const [view] = await this.views([stored]);
    return { ...view, event: stored.event as unknown as Record<string, unknown> };
  }

  /** The host an event was filed under; null when there is no such event. */
  async hostOf(eventId: string): Promise<string | null> {
    return (await this.store.events.byId(eventId))?.host_id ?? null;
  }

  /** Views of the given events that still exist, by id. */
  async viewsByIds(eventIds: string[]): Promise<Map<string, EventView>> {
    if (eventIds.length === 0) return new Map();
    const views = await this.views(await this.store.events.search({ event_ids: eventIds, hidden: [], limit: eventIds.length }));
    return new Map(views.map((v) => [v.event_id, v]));
  }

  /** The newest visible events. */
  async recent(limit: number, hidden: string[], hostIds?: readonly string[]): Promise<EventView[]> {
    return this.views(await this.store.events.search({ hidden, limit, ...hostsOnly(hostIds) }));
  }

  /** The newest events occurred in [fromMs, toMs); `hostIds`: of these hosts only. */
  async recentIn(limit: number, hidden: string[], fromMs: number, toMs: number, hostIds?: readonly string[]): Promise<EventView[]> {
    return this.views(await this.store.events.search({ hidden, limit, from_ms: fromMs, to_ms: toMs, ...hostsOnly(hostIds) }));
  }
}

const hostsOnly = (hostIds: readonly string[] | undefined) => (hostIds ? { host_ids: [...hostIds] } : {});
