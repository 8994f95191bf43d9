import type { Response } from 'express';
import type { Event } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import { AppError, storeUnavailable } from '../errors.js';
import type { ApiKeyRecord, ApiKeysRepo, HostsRepo } from '../store/index.js';
import { bindingMismatch } from './key-binding.js';

/** The key an agent route's authentication verified (`res.locals.agentKey`). */
export function requestKey(res: Response): ApiKeyRecord {
  return res.locals.agentKey as ApiKeyRecord;
}

/** Pairs remembered per daemon before the memory starts over (each costs one store read again). */
const MEMORY = 100_000;

/**
 * Which agent installations a key speaks for on the agent channel (command poll, command result,
 * agent poll). A key bound to an installation speaks for that one; any other key only for the
 * installations it has itself sent accepted events for — as its own host, when it is bound to a
 * hostname (a flagged mismatch grants nothing, nor does an installation another host's agent
 * reports: a host-bound key cannot take over a host's commands by naming its installation). Ingest records each (key, installation) pair once
 * in the store before it answers 201/409, so the agent's next poll, on any daemon, is allowed.
 * Revocation needs nothing here: a revoked key no longer authenticates.
 */
export class KeyAgents {
  /** `key id \n installation` pairs this daemon recorded or found in the store. */
  private readonly known = new Set<string>();

  constructor(
    private readonly repo: Pick<ApiKeysRepo, 'recordAgent' | 'spokeFor'>,
    private readonly hosts: Pick<HostsRepo, 'list'>,
    private readonly clock: Clock,
  ) {}

  /** Ingest, after the event was accepted: remembers that the key sent for its installation (a store write at most once per pair and daemon). */
  async sent(key: ApiKeyRecord, event: Pick<Event, 'host' | 'source'>): Promise<void> {
    const instance = event.source.agent_instance_id?.trim();
    if (!instance || bindingMismatch(key, event) !== null) return;
    const pair = `${key.id}\n${instance}`;
    if (this.known.has(pair)) return;
    if (key.bound_hostname !== null && (await this.hosts.list()).some((h) => h.agent_instance_id?.trim() === instance && h.hostname.trim().toLowerCase() !== key.bound_hostname)) return;
    await this.repo.recordAgent({ key_id: key.id, agent_instance_id: instance, hostname: event.host.hostname.trim().toLowerCase(), first_ms: this.clock.now() });
    this.remember(pair);
  }

  /** Throws `apikey/host_mismatch` (403) unless the key speaks for the installation. */
  async assertSpeaksFor(key: ApiKeyRecord, agentInstanceId: string): Promise<void> {
    if (await this.speaksFor(key, agentInstanceId.trim())) return;
    throw new AppError('apikey/host_mismatch', 'This API key does not speak for this agent installation', {
      details: { agent_instance_id: agentInstanceId.slice(0, 256) },
    });
  }

  private async speaksFor(key: ApiKeyRecord, instance: string): Promise<boolean> {
    if (key.bound_instance_id !== null) return key.bound_instance_id === instance;
    const pair = `${key.id}\n${instance}`;
    if (this.known.has(pair)) return true;
    // Not cached when absent: the agent's first event may have been accepted by another daemon.
    let spoke: boolean;
    try {
      spoke = await this.repo.spokeFor(key.id, instance);
    } catch (err) {
      throw storeUnavailable(err);
    }
    if (!spoke) return false;
    this.remember(pair);
    return true;
  }

  private remember(pair: string): void {
    if (this.known.size >= MEMORY) this.known.clear();
    this.known.add(pair);
  }
}
