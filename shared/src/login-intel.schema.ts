import { z } from 'zod';
import { trimmedText } from './trimmed-text.js';

/*
 * Login intelligence as the console reads it: a user's login baseline and the evidence a
 * login-intelligence problem stores when its rule opens it ("why" in the console).
 */

/** One login as a rule saw it. */
export interface LoginSighting {
  event_id: string;
  /** Occurred time, RFC 3339. */
  at: string;
  host_id: string;
  hostname: string;
  /** The normalised source address, or null when the event names none. */
  address: string | null;
  /** ISO 3166-1 alpha-2 of a public source address, else null. */
  country: string | null;
  asn: number | null;
  as_org: string | null;
}

/** How often one value was seen in a user's successful logins of the learning period. */
export interface BaselineCount<V> {
  value: V;
  count: number;
  /** RFC 3339. */
  last_seen: string;
}

/**
 * A user's usual logins, learnt from successful logins of the learning period (see the
 * correlation settings). The user is normalised: `DOMAIN\user`, `user@domain` and case fold to `user`.
 */
export interface UserBaselineView {
  user: string;
  /** The first login the baseline holds, RFC 3339. */
  first_seen: string;
  /** Until then the user is learning: new sources open no problem. */
  learning_until: string;
  logins: number;
  countries: BaselineCount<string>[];
  asns: (BaselineCount<number> & { as_org: string | null })[];
  /** Successful logins per hour of day (UTC), 24 entries. */
  hours: number[];
  hosts: BaselineCount<string>[];
}

/** Why a login-intelligence problem opened, stored with the problem when its rule opens it. */
export type ProblemEvidence =
  | {
      kind: 'login_after_failures';
      address: string;
      user: string;
      login: LoginSighting;
      /** The failures from the address in the window before the login, per host. */
      failures: { host_id: string; hostname: string; count: number; last_at: string }[];
    }
  | {
      kind: 'distributed_bruteforce';
      address: string;
      window_minutes: number;
      hosts: { host_id: string; hostname: string; count: number; last_at: string }[];
    }
  | {
      kind: 'new_source';
      user: string;
      login: LoginSighting;
      /** What was new: the country, the ASN, or both. */
      new_country: string | null;
      new_asn: number | null;
      baseline: UserBaselineView;
    }
  | {
      kind: 'impossible_travel';
      user: string;
      from: LoginSighting;
      to: LoginSighting;
      distance_km: number;
      minutes: number;
      speed_kmh: number;
      limit_kmh: number;
    }
  | {
      kind: 'mass_silence';
      /** The hosts that fell silent together, with their last sign of life. */
      hosts: { host_id: string; hostname: string; last_seen: string | null }[];
      share_percent: number;
    };

/** `logins.user`: one user's logins across the fleet and their baseline. */
export interface UserLoginsView {
  user: string;
  /** Null when the user has no successful login in the learning period. */
  baseline: UserBaselineView | null;
  /** Newest first, at most 500: successful and failed logins of the user on any host. */
  logins: (LoginSighting & { type: string; outcome: 'success' | 'failure' })[];
}

/** `logins.user`: the user as any agent names them (`DOMAIN\\user`, `user@domain`, any case). */
export const UserLoginsQuerySchema = z.strictObject({ user: trimmedText(256) });
