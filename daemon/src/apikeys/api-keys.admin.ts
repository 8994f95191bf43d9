import type { ApiKeyCreated, ApiKeyView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import { AppError } from '../errors.js';
import type { ApiKeyInfo, ApiKeyService } from './api-keys.service.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(k: ApiKeyInfo): ApiKeyView {
  return { id: k.id, prefix: k.prefix, label: k.label, created_at: iso(k.created_ms)!, last_used_at: iso(k.last_used_ms), revoked_at: iso(k.revoked_ms) };
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

  async create(label: string, actor: Actor): Promise<ApiKeyCreated> {
    const { key, info } = await this.keys.create(label);
    await this.audit.record({ action: 'apikey.created', actor, target: `apikey:${info.id}`, details: { prefix: info.prefix, label } });
    return { key, api_key: view(info) };
  }

  async revoke(id: string, actor: Actor): Promise<void> {
    if (!(await this.keys.revoke(id))) throw new AppError('apikey/not_found', 'No such active API key');
    await this.audit.record({ action: 'apikey.revoked', actor, target: `apikey:${id}` });
  }
}
