import { z } from 'zod';
import { trimmedMatch, trimmedNote, trimmedText } from './trimmed-text.js';

/*
 * Staged agent rollouts: a product moved to a target version ring by ring (a canary list, then
 * waves by percentage of the remaining hosts), each ring judged by a health gate before the next
 * starts; and version pins that no update passes.
 */

export const ROLLOUT_LIMITS = { groups: 50, canary: 50, waves: 10, soak_minutes: 10_080, heartbeat_minutes: 1440 } as const;

export const ROLLOUT_STATES = ['running', 'paused', 'halted', 'aborted', 'completed'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

export const ROLLOUT_RING_STATES = ['waiting', 'updating', 'soaking', 'passed', 'failed'] as const;
export type RolloutRingState = (typeof ROLLOUT_RING_STATES)[number];

export const ROLLOUT_HOST_STATES = ['waiting', 'updating', 'updated', 'failed', 'skipped', 'rolled_back'] as const;
export type RolloutHostState = (typeof ROLLOUT_HOST_STATES)[number];

/** Why a host of a rollout was skipped. */
export const ROLLOUT_SKIP_REASONS = ['pinned', 'up_to_date'] as const;

const Id = z.string().min(1).max(128);
const Product = trimmedText(64);
/** A release version as its tag names it (`2.1.8`, `v2.1.8-SAC` is read as `2.1.8`). */
const Version = trimmedMatch(/^[0-9A-Za-z.+_-]+$/, 64, 'must be a version such as 2.1.8');
const SoakMinutes = z.number().int().min(0).max(ROLLOUT_LIMITS.soak_minutes);

/** Which hosts a rollout moves: the members of groups, or every host of the product not on the target yet. */
export const RolloutHostsSchema = z.union([
  z.strictObject({ groups: z.array(Id).min(1).max(ROLLOUT_LIMITS.groups) }),
  z.strictObject({ all_outdated: z.literal(true) }),
]);
export type RolloutHosts = z.output<typeof RolloutHostsSchema>;

/** One wave after the canary: the share of the remaining hosts updated once it is done (cumulative), then its soak. */
export const RolloutWaveSchema = z.strictObject({
  percent: z.number().int().min(1).max(100),
  soak_minutes: SoakMinutes,
});

/** The health gate between rings. */
export const RolloutHealthSchema = z.strictObject({
  /** An updated host must report the target version and a heartbeat within this many minutes of its job starting. */
  heartbeat_minutes: z.number().int().min(1).max(ROLLOUT_LIMITS.heartbeat_minutes).default(30),
  /** The rollout halts when the failed share of the hosts updated so far exceeds this. */
  max_failure_percent: z.number().int().min(0).max(100).default(0),
});
export type RolloutHealth = z.output<typeof RolloutHealthSchema>;

/** `rollouts.start` / `POST /api/v1/rollouts` (and the input of a `rollout_start` approval request). */
export const RolloutStartSchema = z.strictObject({
  product: Product,
  /** A release tag's version SAC can read and verify; absent: the product's latest. */
  target_version: Version.optional(),
  hosts: RolloutHostsSchema,
  /** Host ids updated first, alone; empty: no canary ring. */
  canary: z.array(Id).max(ROLLOUT_LIMITS.canary).default([]),
  canary_soak_minutes: SoakMinutes.default(0),
  /** Cumulative percentages of the hosts after the canary, ascending, the last 100. */
  waves: z
    .array(RolloutWaveSchema)
    .min(1)
    .max(ROLLOUT_LIMITS.waves)
    .refine((w) => w.every((x, i) => i === 0 || x.percent > w[i - 1].percent), 'wave percentages must ascend')
    .refine((w) => w.at(-1)?.percent === 100, 'the last wave must reach 100 percent'),
  health: RolloutHealthSchema.default({ heartbeat_minutes: 30, max_failure_percent: 0 }),
});
export type RolloutStartInput = z.output<typeof RolloutStartSchema>;

export const RolloutListQuerySchema = z.strictObject({
  state: z.enum(ROLLOUT_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** Rolling back one host of a rollout, or every updated host of one ring, to the previous release. */
export const RolloutRollbackHostSchema = z.strictObject({ id: Id, host_id: Id });
export const RolloutRollbackRingSchema = z.strictObject({ id: Id, ring: z.coerce.number().int().min(0).max(ROLLOUT_LIMITS.waves) });

export interface RolloutHostView {
  host_id: string;
  hostname: string;
  state: RolloutHostState;
  /** Why it was skipped or failed (`pinned`, `up_to_date`, the failure); null otherwise. */
  reason: string | null;
  /** The version the host reports now. */
  version: string;
  /** The update (or rollback) job of this host; null before one. */
  job_id: string | null;
}

export interface RolloutRingView {
  index: number;
  kind: 'canary' | 'wave';
  /** A wave's cumulative percentage; absent on the canary. */
  percent?: number;
  soak_minutes: number;
  state: RolloutRingState;
  started_at: string | null;
  /** When every host was updated, failed or skipped (the soak starts then). */
  finished_at: string | null;
  hosts: RolloutHostView[];
}

export interface RolloutCounts {
  hosts: number;
  waiting: number;
  updating: number;
  updated: number;
  failed: number;
  skipped: number;
  rolled_back: number;
}

export interface RolloutView {
  id: string;
  product: string;
  target_version: string;
  /** The previous release (what a rollback installs); null when there is none. */
  previous_version: string | null;
  from: RolloutHosts;
  health: RolloutHealth;
  rings: RolloutRingView[];
  state: RolloutState;
  /** Index of the ring under way (or the last one reached). */
  current_ring: number;
  /** Why it halted by itself: the hosts and the failure. */
  halt_reason: string | null;
  counts: RolloutCounts;
  created_by: string;
  approved_by: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** Pins: no update moves a host of `product` past `max_version`, for one group's hosts or one host. */
export const AgentPinTargetSchema = z.union([z.strictObject({ group_id: Id }), z.strictObject({ host_id: Id })]);

export const AgentPinSetSchema = z.strictObject({
  product: Product,
  max_version: Version,
  target: AgentPinTargetSchema,
  note: trimmedNote(500).default(''),
});
export type AgentPinSetInput = z.output<typeof AgentPinSetSchema>;

export const AgentPinRemoveSchema = z.strictObject({ id: Id });

export const AgentPinListQuerySchema = z.strictObject({ product: Product.optional() });

export interface AgentPinView {
  id: string;
  product: string;
  max_version: string;
  /** Exactly one of group_id and host_id. */
  group_id: string | null;
  host_id: string | null;
  /** The group's or host's name at the time of reading. */
  target_name: string | null;
  note: string;
  created_by: string;
  created_at: string;
}
