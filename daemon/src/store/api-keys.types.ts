export interface ApiKeyRecord {
  id: string;
  /** The visible start of the key (`sac_` + 8 characters), for identification. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  label: string;
  /** Lower-cased `host.hostname` the key may send for, or null (any host). */
  bound_hostname: string | null;
  /** `source.agent_instance_id` the key may send for, or null (any). */
  bound_instance_id: string | null;
  on_mismatch: 'refuse' | 'flag';
  created_ms: number;
  last_used_ms: number | null;
  revoked_ms: number | null;
}

/** That a key sent an accepted event for an agent installation (the right to speak for it on the agent channel). */
export interface KeyAgentRecord {
  key_id: string;
  /** `source.agent_instance_id`, trimmed. */
  agent_instance_id: string;
  /** Lower-cased `host.hostname` of the first such event. */
  hostname: string;
  first_ms: number;
}

export interface ApiKeysRepo {
  insert(record: ApiKeyRecord): Promise<void>;
  byHash(hash: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  /** Records use of several keys in one write (a key's time only moves forward); the caller throttles how often. */
  touchMany(touches: { id: string; at_ms: number }[]): Promise<void>;
  revoke(id: string, atMs: number): Promise<boolean>;
  /** Records that a key sent events for an agent installation; a pair already recorded is left as it is. */
  recordAgent(record: KeyAgentRecord): Promise<void>;
  /** Whether the key has sent events for the agent installation. */
  spokeFor(keyId: string, agentInstanceId: string): Promise<boolean>;
}
