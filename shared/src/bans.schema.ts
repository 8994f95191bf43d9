import { z } from 'zod';
import { trimmedText } from './trimmed-text.js';

/** Bounds of a fleet SSH ban. ipset's largest entry timeout is 2 147 483 s (about 24.8 days). */
export const BAN_LIMITS = { minDurationS: 60, maxDurationS: 2_147_483, reason: 500, hosts: 500, neverBan: 200 } as const;

/** The ipset sets ssh-monitor bans in (`hash:ip` with per-entry timeouts), by address family. */
export const BAN_SETS = { 4: 'ssh_monitor_ban', 6: 'ssh_monitor_ban_v6' } as const;

/**
 * Where a ban is applied: every Linux host SAC knows, or an explicit list of hosts. A small
 * union, so that a host group can become a third kind.
 */
export const BanTargetSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('linux') }),
  z.strictObject({ kind: z.literal('hosts'), host_ids: z.array(z.string().min(1).max(128)).min(1).max(BAN_LIMITS.hosts) }),
]);
export type BanTarget = z.infer<typeof BanTargetSchema>;

/** `bans.create` / `POST /api/v1/bans`: ban a typed address, or the source address of an event or a problem. */
export const BanCreateFieldsSchema = z.strictObject({
  /** One IPv4 or IPv6 address (no range); left out when `event_id` or `problem_id` names where it comes from. */
  address: trimmedText(64).optional(),
  event_id: z.string().min(1).max(128).optional(),
  problem_id: z.string().min(1).max(128).optional(),
  target: BanTargetSchema.default({ kind: 'linux' }),
  /** Seconds before repeat-offender doubling; default: the `ssh_bans` setting. */
  duration_s: z.number().int().min(BAN_LIMITS.minDurationS).max(BAN_LIMITS.maxDurationS).optional(),
  reason: trimmedText(BAN_LIMITS.reason).optional(),
});
/** Exactly one of `address`, `event_id` and `problem_id`. */
export const oneBanSource = (v: { address?: string; event_id?: string; problem_id?: string }) =>
  [v.address, v.event_id, v.problem_id].filter((x) => x !== undefined).length === 1;
export const BanCreateInputSchema = BanCreateFieldsSchema.refine(oneBanSource, { message: 'give exactly one of address, event_id and problem_id' });
export type BanCreateInput = z.input<typeof BanCreateInputSchema>;

/** `bans.list` / `GET /api/v1/bans`. */
export const BanListQuerySchema = z.strictObject({
  status: z.enum(['open', 'closed', 'all']).default('all'),
  limit: z.coerce.number().int().min(1).max(500).default(200),
});

export const BAN_STATUSES = ['proposed', 'active', 'expired', 'unbanned', 'dismissed'] as const;
export type BanStatus = (typeof BAN_STATUSES)[number];

/** What happened on one host: applied, refused by the host (`failed`), not reached, or not tried because its address is unverified. */
export const BAN_HOST_OUTCOMES = ['pending', 'applied', 'failed', 'unreachable', 'unverified', 'removed'] as const;
export type BanHostOutcome = (typeof BAN_HOST_OUTCOMES)[number];

/** One host's part of a ban as clients see it. */
export interface BanHostView {
  host_id: string;
  hostname: string;
  outcome: BanHostOutcome;
  /** Why it failed, in words safe to show (the host's stderr, the SSH error); null when applied. */
  detail: string | null;
  /** The address SAC connected to, when it did. */
  address: string | null;
  at: string | null;
}

/** A fleet ban as clients see it. */
export interface BanView {
  id: string;
  address: string;
  family: 4 | 6;
  set_name: string;
  status: BanStatus;
  reason: string;
  /** How it came: typed, from an event or a problem, or proposed/applied by the propagation policy. */
  source: 'manual' | 'event' | 'problem' | 'propagation';
  event_id: string | null;
  problem_id: string | null;
  target: BanTarget;
  /** The duration applied: the requested one doubled per earlier ban of the address in the repeat window, capped. */
  duration_s: number;
  /** Earlier bans of this address within the repeat window when this one was applied. */
  previous_bans: number;
  created_by: string | null;
  created_at: string;
  applied_by: string | null;
  applied_at: string | null;
  expires_at: string | null;
  ended_by: string | null;
  ended_at: string | null;
  hosts: BanHostView[];
}
