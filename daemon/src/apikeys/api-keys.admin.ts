import type { ApiKeyCreated, ApiKeyView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import { AppError } from '../errors.js';
import type { ApiKeyInfo, ApiKeyService, KeyBinding } from './api-keys.service.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(k: ApiKeyInfo): ApiKeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    label: k.label,
    hostname: k.bound_hostname,
    agent_instance_id: k.bound_instance_id,
    on_mismatch: k.on_mismatch,
    created_at: iso(k.created_ms)!, last_used_at: iso(k.last_used_ms), revoked_at: iso(k.revoked_ms) };
}

/** Agent API key management for admins (console and REST): list, create (secret shown once), revoke; audited. */
export class ApiKeysAdmin {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly audit: AuditService,
  ) {}

  async list(): Promise<ApiKeyView[]> {
    return (await this.keys.list()).map(view);
  }

  async create(input: { label: string } & KeyBinding, actor: Actor): Promise<ApiKeyCreated> {
    const { label, ...binding } = input;
    const { key, info } = await this.keys.create(label, undefined, binding);
    await this.audit.record({
      action: 'apikey.created',
      actor,
      target: `apikey:${info.id}`,
      details: { prefix: info.prefix, label, hostname: info.bound_hostname, agent_instance_id: info.bound_instance_id, on_mismatch: info.on_mismatch },
    });
    return { key, api_key: view(info) };
  }

  async revoke(id: string, actor: Actor): Promise<void> {
    if (!(await this.keys.revoke(id))) throw new AppError('apikey/not_found', 'No such active API key');
    await this.audit.record({ action: 'apikey.revoked', actor, target: `apikey:${id}` });
  }
}
