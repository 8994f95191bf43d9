import { z } from 'zod';
import { AGENT_PRODUCTS, OS_FAMILIES } from './event.schema.js';
import { trimmedNote, trimmedText } from './trimmed-text.js';

/** Bounds of a host group: its texts, explicit members and rules. */
export const GROUP_LIMITS = { name: 80, description: 500, hosts: 500, patterns: 20, cidrs: 50, limit: 50 } as const;

const hostPattern = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9.*?_-]+$/, 'must be a host name pattern: letters, digits, . _ - and the wildcards * and ?');
/** `10.1.0.0/16`, `2001:db8::/32` or one address; parsed (and refused when malformed) by the daemon. */
const cidr = z.string().min(2).max(49).regex(/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/, 'must be an address or an address range such as 10.1.0.0/16');

/**
 * What makes a host a member besides being named: each non-empty list must match (one of its
 * entries), empty lists do not restrict. Rules whose lists are all empty match no host.
 */
export const GroupRulesSchema = z.strictObject({
  /** Globs over the host name and FQDN, case-insensitive (`web-*`, `db?.corp.example`). */
  host_patterns: z.array(hostPattern).max(GROUP_LIMITS.patterns).default([]),
  os_families: z.array(z.enum(OS_FAMILIES)).max(OS_FAMILIES.length).default([]),
  agent_products: z.array(z.enum(AGENT_PRODUCTS)).max(AGENT_PRODUCTS.length).default([]),
  /** Address ranges over the addresses a host reported and the one SAC saw it connect from. */
  cidrs: z.array(cidr).max(GROUP_LIMITS.cidrs).default([]),
});
export type GroupRules = z.output<typeof GroupRulesSchema>;

const groupFields = {
  name: trimmedText(GROUP_LIMITS.name),
  description: trimmedNote(GROUP_LIMITS.description).default(''),
  /** Hosts named as members (host ids), whatever the rules say. */
  host_ids: z.array(z.string().min(1).max(128)).max(GROUP_LIMITS.hosts).default([]),
  rules: GroupRulesSchema.default({ host_patterns: [], os_families: [], agent_products: [], cidrs: [] }),
};

/** `groups.create` / `POST /api/v1/groups`. */
export const GroupInputSchema = z.strictObject(groupFields);
export type GroupInput = z.input<typeof GroupInputSchema>;

/** `groups.update` / `PUT /api/v1/groups/{id}`: the whole group again. */
export const GroupUpdateSchema = z.strictObject({ id: z.string().min(1).max(64), ...groupFields });

/** `groups.preview`: the members a group would have, before it is saved. */
export const GroupPreviewSchema = z.strictObject({ host_ids: groupFields.host_ids, rules: groupFields.rules });

/** `groups.setUserLimit` / `PUT /api/v1/users/{id}/host-groups`: the groups a monitor sees (null: every host). */
export const UserGroupLimitSchema = z.strictObject({ group_ids: z.array(z.string().min(1).max(64)).max(GROUP_LIMITS.limit).nullable() });

/** One member of a group: named explicitly, matched by the rules, or both. */
export interface GroupMemberView {
  id: string;
  hostname: string;
  os_family: string;
  explicit: boolean;
  by_rules: boolean;
}

/** A group as the API shows it; `member_count` is computed at read time. */
export interface GroupView {
  id: string;
  name: string;
  description: string;
  host_ids: string[];
  rules: GroupRules;
  member_count: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A group with its members (`groups.byId`). */
export interface GroupDetailView extends GroupView {
  members: GroupMemberView[];
}
