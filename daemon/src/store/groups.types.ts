import type { GroupRules } from '../../../shared/src/index.js';

/** A host group as stored. Names are unique case-insensitively. */
export interface GroupRecord {
  id: string;
  name: string;
  description: string;
  /** Hosts named as members, whatever the rules say. */
  host_ids: string[];
  rules: GroupRules;
  created_by: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface GroupsRepo {
  /** False when another group has the name (case-insensitive). */
  insert(record: GroupRecord): Promise<boolean>;
  /** Replaces the group with the same id. */
  replace(record: GroupRecord): Promise<'ok' | 'not_found' | 'duplicate'>;
  /** False when there was no such group. */
  remove(id: string): Promise<boolean>;
  byId(id: string): Promise<GroupRecord | null>;
  /** Every group, by name. */
  list(): Promise<GroupRecord[]>;
  /** The groups a user is limited to; null: not limited (every host). */
  userLimit(userId: string): Promise<string[] | null>;
  /** Limits a user to these groups, or with null lifts the limit. */
  setUserLimit(userId: string, groupIds: string[] | null): Promise<void>;
}
