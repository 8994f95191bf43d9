import type { ProblemEvidence, Severity } from '../../../shared/src/index.js';
import type { DomainFact } from '../facts.js';
import { foldRollups, type CommittedEvent, type ProblemLink, type ProblemMatchInput, type SourceFailure, type Store } from '../store/index.js';
import {
  ANY_HOST,
  clusterByWindow,
  contentFingerprint,
  effectiveSeverity,
  isHiddenType,
  maxSeverity,
  opensProblem,
  problemFingerprint,
  problemKey,
  type ProblemRule,
  uniqueLinks,
} from './correlation.rules.js';
import type { CorrelationSettings } from './correlation.settings.js';
import { HOST_ACTIVITY_TYPE, HOST_ACTIVITY_WINDOW_MS, hostActivityTitle, typeProblemChoice } from './type-problems.rules.js';
import {
  FLAP_MAX_MS,
  FLAP_MIN_MS,
  FLAP_WINDOW_MS,
  flapKeyParts,
  GATEWAY_DETAIL_KEYS,
  gatewayRole,
  gatewaySide,
  isFlap,
  RDG_CLOSED,
  RDG_FLAP_TYPE,
  RDG_OPENED,
  type GatewayRole,
  type GatewaySide,
} from './flap.rules.js';
import { hardwareChangeTitle, hardwareDiff, inventoryOf } from './inventory.rules.js';
import {
  DISTRIBUTED_BRUTEFORCE_TYPE,
  distributedBruteforceTitle,
  isFailedLogin,
  isSuccessfulLogin,
  LOGIN_AFTER_FAILURES_TYPE,
  loginAfterFailuresTitle,
  loginSource,
  loginUser,
} from './logins.rules.js';
import {
  baselineIncrements,
  baselineOverflow,
  baselineView,
  earlierLinks,
  failuresByHost,
  firstAtOrBefore,
  IMPOSSIBLE_TRAVEL_TYPE,
  impossibleTravel,
  impossibleTravelTitle,
  learningUntil,
  loginSighting,
  NEW_SOURCE_TYPE,
  newSourceTitle,
  reachesHosts,
  sightingOf,
  userLoginRow,
  valuesByUser,
} from './user-logins.rules.js';

/** Most stored gateway events read per host around a batch when looking for flap counterparts. */
const FLAP_SCAN_LIMIT = 5000;
/** Most stored failures read per source address of a batch (the newest; thresholds are far below). */
const SOURCE_SCAN_LIMIT = 2000;
/** Failures linked to a login problem's timeline besides the events that raised it. */
const SOURCE_LINK_LIMIT = 50;
/** How long failed logins by source are kept: the longest window the settings allow. */
const SOURCE_KEEP_MS = 24 * 60 * 60_000;

/** An event of the batch with what the rules derived for it. */
interface Derived {
  c: CommittedEvent;
  severity: Severity;
  hidden: boolean;
}

/** One occurrence to correlate: an event (or a pair) under a problem key. */
interface Occurrence {
  key: string;
  rule: ProblemRule;
  type: string;
  host_id: string;
  hostname: string;
  severity: Severity;
  occurred_ms: number;
  window_ms: number;
  links: ProblemLink[];
  counted: boolean;
  /**
   * The problem's title, and why the rule raised it (login intelligence; stored when it opens a
   * problem). Called only for the first occurrence of each window cluster, the one a new problem
   * takes them from: the cross-host rules' evidence walks every failure of the window.
   */
  describe: () => { title: string; evidence?: ProblemEvidence };
}

/** What correlating a batch derived besides its writes: the problems it opened or grew (facts), and those it opened (for the log). */
export interface CorrelationEffects {
  facts: DomainFact[];
  opened: { problem_id: string; rule: string; type: string; host_id: string }[];
}

/**
 * Correlation at ingest, batch-wise: runs in each group commit (ingest's pipeline), before the
 * agents get their answers. Per batch: stored-severity overrides, dashboard rollups, inventory
 * snapshots, RD Gateway flaps, replay fingerprints and problem upserts — each a few store
 * round-trips for the whole batch, not per event. It writes only to the store and returns the rest.
 */
export class CorrelationService {
  constructor(private readonly store: Store) {}

  async onCommitted(batch: CommittedEvent[], settings: CorrelationSettings, nowMs: number): Promise<CorrelationEffects> {
    const effects: CorrelationEffects = { facts: [], opened: [] };
    if (batch.length === 0) return effects;
    const derived: Derived[] = batch.map((c) => ({
      c,
      severity: effectiveSeverity(c.event.type, c.event.severity, settings.severityOverrides),
      hidden: isHiddenType(c.event.type, settings.hiddenTypes),
    }));
    const overridden = derived.filter((d) => d.severity !== d.c.event.severity);
    const visible = derived.filter((d) => !d.hidden);
    // These touch different documents and none reads what another writes: on MongoDB they go out
    // together, so the batch waits for the slowest rather than for their sum.
    const [, , severity, inventory, flaps, logins, users] = await Promise.all([
      this.store.events.setStoredSeverity(overridden.map((d) => ({ event_id: d.c.event.event_id, severity: d.severity }))),
      this.store.rollups.add(
        foldRollups(
          derived.map((d) => ({ occurred_ms: d.c.occurred_ms, type: d.c.event.type, severity: d.severity, host_id: d.c.host_id })),
          (type) => !isHiddenType(type, settings.hiddenTypes),
        ),
      ),
      this.severityOccurrences(visible, settings),
      this.inventoryOccurrences(visible, settings),
      this.flapOccurrences(visible),
      this.loginOccurrences(visible, settings, nowMs),
      this.userOccurrences(visible, settings, nowMs),
    ]);
    await this.raise([...severity, ...inventory, ...flaps, ...logins, ...users], nowMs, effects);
    return effects;
  }

  /**
   * Events that open problems by severity, as their type's choice says: their own problem (`open`),
   * the host's activity problem (`count`, at info severity: it pages no one), or none (`never`).
   * Replays (equal content fingerprint) are linked but not counted.
   */
  private async severityOccurrences(events: Derived[], settings: CorrelationSettings): Promise<Occurrence[]> {
    const candidates = events
      .filter((d) => opensProblem(d.c.event.type, d.severity))
      .map((d) => ({ d, choice: typeProblemChoice(d.c.event.type, d.c.actor_user, settings.typeProblems, settings.adminUsers) }))
      .filter((x) => x.choice !== 'never');
    if (candidates.length === 0) return [];
    const claimed = await this.store.events.claimFingerprints(
      candidates.map(({ d }) => ({
        fp: contentFingerprint(d.c.host_id, d.c.event, d.c.actor_user, d.c.occurred_ms),
        host_id: d.c.host_id,
        event_id: d.c.event.event_id,
      })),
    );
    return candidates.map(({ d, choice }, i) => ({
      ...(choice === 'count'
        ? {
            key: problemKey(d.c.host_id, HOST_ACTIVITY_TYPE, 'host_activity'),
            rule: 'host_activity' as const,
            type: HOST_ACTIVITY_TYPE,
            describe: () => ({ title: hostActivityTitle(d.c.event.host.hostname) }),
            severity: 'info' as const,
            window_ms: HOST_ACTIVITY_WINDOW_MS,
          }
        : {
            key: problemKey(d.c.host_id, d.c.event.type, 'severity'),
            rule: 'severity' as const,
            type: d.c.event.type,
            describe: () => ({ title: d.c.event.title }),
            severity: d.severity,
            window_ms: settings.windowMinutes * 60_000,
          }),
      host_id: d.c.host_id,
      hostname: d.c.event.host.hostname,
      occurred_ms: d.c.occurred_ms,
      links: [{ event_id: d.c.event.event_id, occurred_ms: d.c.occurred_ms, counted: claimed[i] }],
      counted: claimed[i],
    }));
  }

  /** The newest inventory per host replaces the snapshot; changed hardware raises `hardware_changed`. */
  private async inventoryOccurrences(events: Derived[], settings: CorrelationSettings): Promise<Occurrence[]> {
    const latest = new Map<string, Derived>();
    for (const d of events) {
      if (d.c.event.type !== 'agent.inventory' || !inventoryOf(d.c.event.details)) continue;
      const seen = latest.get(d.c.host_id);
      if (!seen || seen.c.occurred_ms < d.c.occurred_ms) latest.set(d.c.host_id, d);
    }
    const out: Occurrence[] = [];
    for (const d of latest.values()) {
      const inventory = inventoryOf(d.c.event.details)!;
      const { replaced, previous } = await this.store.hostState.replaceInventory(d.c.host_id, inventory, d.c.occurred_ms);
      const parts = replaced ? hardwareDiff(previous, inventory) : [];
      if (parts.length === 0) continue;
      out.push({
        key: problemKey(d.c.host_id, 'agent.inventory', 'hardware_changed'),
        rule: 'hardware_changed',
        type: 'agent.inventory',
        host_id: d.c.host_id,
        hostname: d.c.event.host.hostname,
        describe: () => ({ title: hardwareChangeTitle(d.c.event.host.hostname, parts) }),
        severity: 'warning',
        occurred_ms: d.c.occurred_ms,
        window_ms: settings.windowMinutes * 60_000,
        links: [{ event_id: d.c.event.event_id, occurred_ms: d.c.occurred_ms, counted: true }],
        counted: true,
      });
    }
    return out;
  }

  /**
   * RD Gateway 302/303 pairs 1–10 s apart, found whichever side arrives second (also within one
   * batch): per batch, one store query per side present for the counterparts of all its gateway
   * hosts (the two go out together: one round trip's wait on MongoDB); the flaps are then marked
   * in a fixed order.
   */
  private async flapOccurrences(events: Derived[]): Promise<Occurrence[]> {
    const byHost = new Map<string, Derived[]>();
    for (const d of events) {
      if (!gatewayRole(d.c.event.type)) continue;
      const sides = byHost.get(d.c.host_id);
      if (sides) sides.push(d);
      else byHost.set(d.c.host_id, [d]);
    }
    const lookups = (['opened', 'closed'] as const)
      .map((role) => ({ role, own: [...byHost.values()].flat().filter((d) => gatewayRole(d.c.event.type) === role) }))
      .filter((l) => l.own.length > 0);
    const found = await Promise.all(
      lookups.map(({ role, own }) => {
        // Counterparts only: closed 1–10 s after an opened side, opened 1–10 s before a closed one.
        const times = own.map((d) => d.c.occurred_ms);
        const hosts = [...new Set(own.map((d) => d.c.host_id))];
        const [from, to] = role === 'opened' ? [FLAP_MIN_MS, FLAP_MAX_MS] : [-FLAP_MAX_MS, -FLAP_MIN_MS];
        return this.store.events.details({
          host_ids: hosts,
          types: role === 'opened' ? [...RDG_CLOSED] : [RDG_OPENED],
          from_ms: Math.min(...times) + from,
          to_ms: Math.max(...times) + to + 1,
          keys: [...GATEWAY_DETAIL_KEYS],
          limit: FLAP_SCAN_LIMIT * hosts.length,
        });
      }),
    );
    const out: Occurrence[] = [];
    for (const [hostId, sides] of byHost) {
      for (const [i, { role }] of lookups.entries()) {
        const stored = found[i].filter((e) => e.host_id === hostId).map((e) => gatewaySide(e.host_id, e.event_id, e.details, e.occurred_ms));
        for (const d of sides) if (gatewayRole(d.c.event.type) === role) out.push(...(await this.flapsOf(hostId, d, role, stored)));
      }
    }
    return out;
  }

  /** The flaps one gateway side forms with stored counterparts, each raised only by the writer that marks it. */
  private async flapsOf(hostId: string, d: Derived, role: GatewayRole, counterparts: GatewaySide[]): Promise<Occurrence[]> {
    const out: Occurrence[] = [];
    const side = gatewaySide(hostId, d.c.event.event_id, d.c.event.details, d.c.occurred_ms);
    for (const other of counterparts) {
      const [opened, closed] = role === 'opened' ? [side, other] : [other, side];
      if (!isFlap(opened, closed)) continue;
      // The mark is the atomic step: only the writer that set it raises the problem.
      if (!(await this.store.events.markFlap(closed.event_id, opened.event_id, hostId))) continue;
      out.push({
        key: problemKey(hostId, RDG_FLAP_TYPE, 'rdg_flap', flapKeyParts(closed)),
        rule: 'rdg_flap',
        type: RDG_FLAP_TYPE,
        host_id: hostId,
        hostname: d.c.event.host.hostname,
        describe: () => ({ title: `RD Gateway flap: ${closed.user || '-'} → ${closed.internal_ip || '-'}` }),
        severity: 'warning',
        occurred_ms: closed.occurred_ms,
        window_ms: FLAP_WINDOW_MS,
        links: [
          { event_id: closed.event_id, occurred_ms: closed.occurred_ms, counted: true },
          { event_id: opened.event_id, occurred_ms: opened.occurred_ms, counted: false },
        ],
        counted: true,
      });
    }
    return out;
  }

  /**
   * Logins across hosts by source address: a success after enough failures of its address
   * (`login_after_failures`), and failures of one address on enough distinct hosts
   * (`distributed_bruteforce`). The batch's failures are recorded before the store is read, so
   * with several daemons ingesting at once the last of them to write sees every failure.
   */
  private async loginOccurrences(events: Derived[], settings: CorrelationSettings, nowMs: number): Promise<Occurrence[]> {
    const { loginAfterFailures: afterFailures, distributedBruteforce: distributed } = settings.crossHost;
    const logins: { d: Derived; address: string; failed: boolean }[] = [];
    // Logins older than the store keeps failures (an agent's old spool) are left out: recorded,
    // they would be pruned at once, so whether they count would depend on the daemons' timing.
    const horizonMs = nowMs - SOURCE_KEEP_MS;
    for (const d of events) {
      if (d.c.occurred_ms < horizonMs) continue;
      const failed = isFailedLogin(d.c.event.type);
      if (!failed && !isSuccessfulLogin(d.c.event.type)) continue;
      const address = loginSource(d.c.event.details);
      if (address !== null) logins.push({ d, address, failed });
    }
    const failures: SourceFailure[] = logins
      .filter((l) => l.failed)
      .map(({ d, address }) => ({ event_id: d.c.event.event_id, address, host_id: d.c.host_id, hostname: d.c.event.host.hostname, occurred_ms: d.c.occurred_ms }));
    // Recorded even with both rules off: switched on later, they count what came before.
    if (failures.length > 0) await this.store.sourceFailures.record(failures, horizonMs);
    const wanted = logins.filter((l) => (l.failed ? distributed.enabled : afterFailures.enabled));
    if (wanted.length === 0) return [];
    const times = wanted.map((l) => l.d.c.occurred_ms);
    const addresses = [...new Set(wanted.map((l) => l.address))];
    const stored = await this.store.sourceFailures.list({
      addresses,
      from_ms: Math.min(...times) - Math.max(afterFailures.windowMs, distributed.windowMs),
      to_ms: Math.max(...times),
      limit: SOURCE_SCAN_LIMIT * addresses.length,
    });
    const byAddress = new Map<string, SourceFailure[]>();
    for (const f of stored) {
      const rows = byAddress.get(f.address);
      if (rows) rows.push(f);
      else byAddress.set(f.address, [f]);
    }
    // An address's failures in [at - windowMs, at]: a run of its newest-first rows, found by bisection.
    const before = (address: string, at: number, windowMs: number) => {
      const rows = byAddress.get(address) ?? [];
      return rows.slice(firstAtOrBefore(rows, at), firstAtOrBefore(rows, at - windowMs - 1));
    };
    const out: Occurrence[] = [];
    for (const { d, address, failed } of wanted) {
      const own: ProblemLink = { event_id: d.c.event.event_id, occurred_ms: d.c.occurred_ms, counted: true };
      const base = { host_id: d.c.host_id, hostname: d.c.event.host.hostname, occurred_ms: d.c.occurred_ms, counted: true };
      if (failed) {
        const rows = before(address, d.c.occurred_ms, distributed.windowMs);
        if (!reachesHosts(rows, distributed.minHosts)) continue;
        out.push({
          ...base,
          key: problemKey(ANY_HOST, DISTRIBUTED_BRUTEFORCE_TYPE, 'distributed_bruteforce', [address]),
          rule: 'distributed_bruteforce',
          type: DISTRIBUTED_BRUTEFORCE_TYPE,
          severity: distributed.severity,
          window_ms: distributed.windowMs,
          links: [own, ...earlierLinks(rows, own.event_id, SOURCE_LINK_LIMIT)],
          describe: () => ({
            title: distributedBruteforceTitle(address, [...new Map(rows.map((f) => [f.host_id, f.hostname])).values()].sort()),
            evidence: { kind: 'distributed_bruteforce', address, window_minutes: distributed.windowMs / 60_000, hosts: failuresByHost(rows) },
          }),
        });
      } else {
        const rows = before(address, d.c.occurred_ms, afterFailures.windowMs);
        if (rows.length < afterFailures.minFailures) continue;
        const user = loginUser(d.c.event.details);
        out.push({
          ...base,
          key: problemKey(d.c.host_id, LOGIN_AFTER_FAILURES_TYPE, 'login_after_failures', [address, user]),
          rule: 'login_after_failures',
          type: LOGIN_AFTER_FAILURES_TYPE,
          severity: afterFailures.severity,
          window_ms: afterFailures.windowMs,
          links: [own, ...earlierLinks(rows, own.event_id, SOURCE_LINK_LIMIT)],
          describe: () => ({
            title: loginAfterFailuresTitle(address, user, d.c.event.host.hostname, rows.length),
            evidence: { kind: 'login_after_failures', address, user, login: sightingOf(d.c), failures: failuresByHost(rows) },
          }),
        });
      }
    }
    return out;
  }

  /**
   * Logins by user: every login of a named user is kept for the user's page; successful ones add
   * to the user's baseline (added before the baselines are read, so with several daemons the last
   * to write sees every login), then open `new_source` — a country or ASN the baseline held no
   * earlier login from, once the user's learning period is over — and `impossible_travel`.
   */
  private async userOccurrences(events: Derived[], settings: CorrelationSettings, nowMs: number): Promise<Occurrence[]> {
    const { newSource, impossibleTravel: travel } = settings.crossHost;
    // Logins older than the baselines keep are left out (recorded, they would be pruned at once).
    const horizonMs = nowMs - newSource.learningMs;
    const logins = events.flatMap((d) => {
      const l = d.c.occurred_ms < horizonMs ? null : loginSighting(d.c, isFailedLogin(d.c.event.type));
      return l ? [l] : [];
    });
    if (logins.length === 0) return [];
    const successes = logins.filter((l) => l.success);
    await Promise.all([
      this.store.userLogins.record(logins.map(userLoginRow), horizonMs),
      successes.length === 0
        ? undefined
        : this.store.loginBaselines.add([...baselineIncrements([...successes].sort((a, b) => a.occurred_ms - b.occurred_ms), newSource.learningMs).values()], horizonMs),
    ]);
    if (successes.length === 0) return [];
    const stored = await this.store.loginBaselines.of([...new Set(successes.map((l) => l.user))]);
    const overflow = baselineOverflow(stored);
    if (overflow.length > 0) await this.store.loginBaselines.remove(overflow);
    const byUser = valuesByUser(stored);
    const out: Occurrence[] = [];
    for (const l of successes) {
      const values = byUser.get(l.user) ?? [];
      const s = l.sighting;
      const base = { host_id: s.host_id, hostname: s.hostname, occurred_ms: l.occurred_ms, counted: true, links: [{ event_id: s.event_id, occurred_ms: l.occurred_ms, counted: true }] };
      // New: no login of the baseline from it before this one.
      const isNew = (dim: 'country' | 'asn', value: string | number | null) =>
        value !== null && values.some((v) => v.dim === dim && v.value === String(value) && v.first_ms >= l.occurred_ms);
      const until = learningUntil(values, newSource.learningMs);
      const newCountry = isNew('country', s.country) ? s.country : null;
      const newAsn = isNew('asn', s.asn) ? s.asn : null;
      if (newSource.enabled && until !== null && l.occurred_ms >= until && (newCountry !== null || newAsn !== null)) {
        const usual = values.filter((v) => !(v.dim === 'country' && v.value === newCountry) && !(v.dim === 'asn' && v.value === String(newAsn)));
        out.push({
          ...base,
          // Keyed by the login's source, not by which of its parts were new: with several daemons a
          // concurrent reader may see the country row already counted and the ASN row not yet, and
          // both readings must join one problem.
          key: problemKey(ANY_HOST, NEW_SOURCE_TYPE, 'new_source', [l.user, s.country ?? '', String(s.asn ?? '')]),
          rule: 'new_source',
          type: NEW_SOURCE_TYPE,
          severity: newSource.severity,
          window_ms: settings.windowMinutes * 60_000,
          describe: () => ({
            title: newSourceTitle(l.user, newCountry, newAsn, newAsn === null ? null : s.as_org),
            evidence: { kind: 'new_source', user: l.user, login: s, new_country: newCountry, new_asn: newAsn, baseline: baselineView(l.user, usual, newSource.learningMs)! },
          }),
        });
      }
      const others = values.flatMap((v) => (v.dim === 'country' && v.sighting && v.sighting.event_id !== s.event_id ? [v.sighting] : []));
      const trip = travel.enabled ? impossibleTravel(s, others, travel.speedKmh) : null;
      if (trip) {
        out.push({
          ...base,
          key: problemKey(ANY_HOST, IMPOSSIBLE_TRAVEL_TYPE, 'impossible_travel', [l.user]),
          rule: 'impossible_travel',
          type: IMPOSSIBLE_TRAVEL_TYPE,
          severity: travel.severity,
          window_ms: settings.windowMinutes * 60_000,
          links: [...base.links, { event_id: trip.from.event_id === s.event_id ? trip.to.event_id : trip.from.event_id, occurred_ms: Date.parse(trip.from.event_id === s.event_id ? trip.to.at : trip.from.at), counted: false }],
          describe: () => ({ title: impossibleTravelTitle(l.user, trip), evidence: { kind: 'impossible_travel', user: l.user, ...trip, limit_kmh: travel.speedKmh } }),
        });
      }
    }
    return out;
  }

  /** Groups occurrences per key into window clusters; all clusters of the batch in one store call (atomic per cluster). */
  private async raise(occurrences: Occurrence[], now: number, effects: CorrelationEffects): Promise<void> {
    if (occurrences.length === 0) return;
    const byKey = new Map<string, Occurrence[]>();
    for (const o of occurrences) {
      const group = byKey.get(o.key);
      if (group) group.push(o);
      else byKey.set(o.key, [o]);
    }
    const inputs: ProblemMatchInput[] = [];
    for (const group of byKey.values()) {
      for (const cluster of clusterByWindow(group, group[0].window_ms)) {
        const first = cluster[0];
        const { title, evidence } = first.describe();
        inputs.push({
          key: first.key,
          fingerprint: problemFingerprint(first.key),
          rule: first.rule,
          type: first.type,
          host_id: first.host_id,
          hostname: first.hostname,
          title,
          severity: cluster.reduce<Severity>((s, o) => maxSeverity(s, o.severity), 'info'),
          window_ms: first.window_ms,
          first_ms: first.occurred_ms,
          last_ms: cluster[cluster.length - 1].occurred_ms,
          count: cluster.filter((o) => o.counted).length,
          now_ms: now,
          links: uniqueLinks(cluster.map((o) => o.links)),
          ...(evidence ? { evidence } : {}),
        });
      }
    }
    const results = await this.store.problems.upsertMatchMany(inputs);
    results.forEach(({ problem, created }, i) => {
      if (!problem || (!created && inputs[i].count === 0)) return;
      effects.facts.push({ type: created ? 'problem.opened' : 'problem.grown', problem });
      if (created) effects.opened.push({ problem_id: problem.id, rule: problem.rule, type: problem.type, host_id: problem.host_id });
    });
  }
}
