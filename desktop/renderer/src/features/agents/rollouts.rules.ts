import type { RolloutHostState, RolloutRingState, RolloutState } from '../../../../../shared/src/rollouts.schema';

/* Pure rules of the rollouts view: the start form's defaults and checks, soak countdowns, the rings picture (no API, no clock). */

interface HostLike {
  host_id: string;
  state: RolloutHostState;
}
interface RingLike {
  index: number;
  kind: 'canary' | 'wave';
  state: RolloutRingState;
  hosts: readonly HostLike[];
}

/** The waves a new rollout starts with: a quarter, half, then every host, each soaking 30 minutes. */
export const DEFAULT_WAVES: readonly { percent: number; soak_minutes: number }[] = [
  { percent: 25, soak_minutes: 30 },
  { percent: 50, soak_minutes: 30 },
  { percent: 100, soak_minutes: 30 },
];
/** The health gate a new rollout starts with (the daemon's defaults): a heartbeat within 30 minutes, no failed host. */
export const DEFAULT_HEALTH = { heartbeat_minutes: 30, max_failure_percent: 0 } as const;
/** The canary's soak a new rollout starts with, as long as a wave's. */
export const DEFAULT_CANARY_SOAK = 30;
/** The bounds the form checks (the daemon checks them again). */
export const LIMITS = { waves: 10, soakMinutes: 10_080, heartbeatMinutes: 1_440, canaries: 50 } as const;

/** What the start dialog edits. Numbers are strings as typed, checked by `rolloutFormErrors`. */
export interface RolloutForm {
  product: string;
  version: string;
  allOutdated: boolean;
  groupIds: string[];
  canaryIds: string[];
  canarySoak: string;
  waves: { percent: string; soak_minutes: string }[];
  heartbeatMinutes: string;
  maxFailurePercent: string;
}

export function newRolloutForm(product: string): RolloutForm {
  return {
    product,
    version: '',
    allOutdated: true,
    groupIds: [],
    canaryIds: [],
    canarySoak: String(DEFAULT_CANARY_SOAK),
    waves: DEFAULT_WAVES.map((w) => ({ percent: String(w.percent), soak_minutes: String(w.soak_minutes) })),
    heartbeatMinutes: String(DEFAULT_HEALTH.heartbeat_minutes),
    maxFailurePercent: String(DEFAULT_HEALTH.max_failure_percent),
  };
}

/** A whole number within bounds, or null. */
function whole(text: string, min: number, max: number): number | null {
  if (!/^\s*\d{1,6}\s*$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** The reason key of each field the form refuses (`waves.2.percent`…); empty when it can be sent. */
export function rolloutFormErrors(form: RolloutForm): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!form.product) errors.product = 'required';
  if (!form.allOutdated && form.groupIds.length === 0) errors.hosts = 'noGroups';
  if (form.canaryIds.length > LIMITS.canaries) errors.canaries = 'tooManyCanaries';
  if (form.canaryIds.length > 0 && whole(form.canarySoak, 0, LIMITS.soakMinutes) === null) errors.canarySoak = 'soak';
  if (form.waves.length === 0) errors.waves = 'noWaves';
  let previous = 0;
  form.waves.forEach((w, i) => {
    const percent = whole(w.percent, 1, 100);
    if (percent === null) errors[`waves.${i}.percent`] = 'percent';
    else if (percent <= previous) errors[`waves.${i}.percent`] = 'ascending';
    else previous = percent;
    if (whole(w.soak_minutes, 0, LIMITS.soakMinutes) === null) errors[`waves.${i}.soak_minutes`] = 'soak';
  });
  const last = form.waves.at(-1);
  if (last && !errors[`waves.${form.waves.length - 1}.percent`] && whole(last.percent, 1, 100) !== 100) errors.waves = 'lastAll';
  if (whole(form.heartbeatMinutes, 1, LIMITS.heartbeatMinutes) === null) errors.heartbeat = 'heartbeat';
  if (whole(form.maxFailurePercent, 0, 100) === null) errors.maxFailure = 'percent';
  return errors;
}

/** The start input of a form `rolloutFormErrors` accepts. */
export function rolloutInput(form: RolloutForm) {
  return {
    product: form.product,
    ...(form.version ? { target_version: form.version } : {}),
    hosts: form.allOutdated ? { all_outdated: true as const } : { groups: form.groupIds },
    canary: form.canaryIds,
    ...(form.canaryIds.length > 0 ? { canary_soak_minutes: Number(form.canarySoak) } : {}),
    waves: form.waves.map((w) => ({ percent: Number(w.percent), soak_minutes: Number(w.soak_minutes) })),
    health: { heartbeat_minutes: Number(form.heartbeatMinutes), max_failure_percent: Number(form.maxFailurePercent) },
  };
}

/** Minutes (rounded up) of a soaking ring's soak left at `now` (it starts when the ring finished); null when none is left. */
export function soakLeft(ring: { state: RolloutRingState; finished_at: string | null; soak_minutes: number }, now: number): number | null {
  if (ring.state !== 'soaking' || !ring.finished_at) return null;
  const left = Math.ceil((Date.parse(ring.finished_at) + ring.soak_minutes * 60_000 - now) / 60_000);
  return left > 0 ? left : null;
}

/** The hosts a rollout would move (the canary is picked among them): all outdated ones of the product, or those of the groups. */
export function rolloutCandidates<H extends { id: string; agent_product: string; outdated: boolean }>(hosts: readonly H[], product: string, groupMembers: ReadonlySet<string> | null): H[] {
  return hosts.filter((h) => h.agent_product === product && (groupMembers ? groupMembers.has(h.id) : h.outdated));
}

/** Which of pause, resume and abort a rollout in this state offers. */
export function rolloutActions(state: RolloutState): { pause: boolean; resume: boolean; abort: boolean } {
  return { pause: state === 'running', resume: state === 'paused' || state === 'halted', abort: state === 'running' || state === 'paused' || state === 'halted' };
}

/** A host a rollback can return to the previous version: one the rollout moved or tried to. */
export const hostRollbackable = (state: RolloutHostState) => state === 'updated' || state === 'failed';
/** A ring a rollback can act on: one with a host to return. */
export const ringRollbackable = (ring: RingLike) => ring.hosts.some((h) => hostRollbackable(h.state));

export const rolloutBadge = (s: RolloutState) => ({ running: 'accent', paused: 'st-acknowledged', halted: 'bad', aborted: 'neutral', completed: 'ok' })[s];
export const ringBadge = (s: RolloutRingState) => ({ waiting: 'neutral', updating: 'accent', soaking: 'st-acknowledged', passed: 'ok', failed: 'bad' })[s];
export const hostBadge = (s: RolloutHostState) => ({ waiting: 'neutral', updating: 'accent', updated: 'ok', failed: 'bad', skipped: 'neutral', rolled_back: 'st-acknowledged' })[s];

/** One dot of the rings picture: where it sits on its circle (centre 0,0) and whose it is. */
export interface RingDot {
  host_id: string;
  state: RolloutHostState;
  x: number;
  y: number;
}
export interface RingCircle {
  index: number;
  state: RolloutRingState;
  radius: number;
  dotRadius: number;
  dots: RingDot[];
}

/**
 * The rings as concentric circles, canary innermost, each host a dot spaced evenly round its
 * ring from the top, clockwise. Dots shrink on a crowded ring so they never overlap.
 */
export function ringCircles(rings: readonly RingLike[], size: { inner: number; step: number; maxDot: number }): RingCircle[] {
  return [...rings]
    .sort((a, b) => a.index - b.index)
    .map((ring, i) => {
      const radius = size.inner + i * size.step;
      const n = ring.hosts.length;
      const spacing = n > 0 ? (2 * Math.PI * radius) / n : Infinity;
      const dotRadius = Math.max(1, Math.min(size.maxDot, spacing / 2 - 0.5));
      const dots = ring.hosts.map((h, k) => {
        const angle = -Math.PI / 2 + (2 * Math.PI * k) / n;
        return { host_id: h.host_id, state: h.state, x: round(radius * Math.cos(angle)), y: round(radius * Math.sin(angle)) };
      });
      return { index: ring.index, state: ring.state, radius, dotRadius: round(dotRadius), dots };
    });
}

const round = (n: number) => Math.round(n * 100) / 100;
