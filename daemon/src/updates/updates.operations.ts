import { z } from 'zod';
import { hostNotFound } from '../errors.js';
import { defineOperation } from '../http/index.js';
import { AGENT_UPDATE_STATES } from '../store/index.js';
import type { AgentUpdatesService } from './agent-updates.service.js';
import type { AgentVersionsService } from './agent-versions.service.js';

const Id = z.string().min(1).max(64);
const HostInput = z.strictObject({ host_id: Id });
const ProductInput = z.strictObject({ product: Id });
/** A desired agent configuration: a flat-ish JSON object, bounded. */
const AgentConfig = z
  .record(z.string().min(1).max(128), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 65_536, 'must be at most 64 KiB as JSON');
const Version = z.looseObject({ product: z.string() });
const Job = z.looseObject({ id: z.string(), host_id: z.string(), state: z.string() });
const NOT_ENABLED = { '409': 'Updates of this product are off, or no version is known' };

/**
 * Agent versions and updates, console side: latest versions and update jobs (any user); check
 * now, the git test, starting updates and a host's desired configuration (admin). The agents'
 * poll and bundle download stay in `agent-updates.routes.ts`.
 */
export function updatesOperations(versions: AgentVersionsService, updates: AgentUpdatesService) {
  return [
    defineOperation({
      id: 'agents.versions',
      summary: 'Latest agent versions from the git repositories',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/agents/versions',
      envelope: 'versions',
      output: z.array(Version),
      handler: () => versions.list(),
    }),
    defineOperation({
      id: 'agents.refreshVersions',
      summary: 'Read every agent repository now',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/agents/versions/refresh',
      envelope: 'versions',
      output: z.array(Version),
      handler: (_input, caller) => versions.refreshAll(caller),
    }),
    defineOperation({
      id: 'agents.testGitRepo',
      summary: 'Test reading a product’s agent repository',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/settings/git_repos/test',
      input: ProductInput,
      output: z.looseObject({ ok: z.boolean() }),
      errors: { '404': 'No git repository is configured for the product' },
      handler: (input, caller) => versions.test(input.product, caller),
    }),
    defineOperation({
      id: 'agents.updates',
      summary: 'Agent update jobs, newest first',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/agent-updates',
      envelope: 'jobs',
      input: z.object({
        host_id: Id.optional(),
        state: z.enum(AGENT_UPDATE_STATES).optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
      }),
      output: z.array(Job),
      handler: (input) => updates.list(input),
    }),
    defineOperation({
      id: 'agents.update',
      summary: 'One agent update job',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/agent-updates/{id}',
      trpc: false,
      input: z.strictObject({ id: Id }),
      output: Job,
      handler: (input) => updates.byId(input.id),
    }),
    defineOperation({
      id: 'agents.pushUpdate',
      summary: 'Push an update job to its host now (WinRM or SSH)',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/agent-updates/{job_id}/push',
      input: z.strictObject({ job_id: Id }),
      output: Job,
      errors: NOT_ENABLED,
      handler: (input, caller) => updates.pushNow(input.job_id, caller),
    }),
    defineOperation({
      id: 'agents.updateHost',
      summary: 'Update one host’s agent (200 when it already has a job)',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/hosts/{host_id}/agent-update',
      input: HostInput,
      output: z.looseObject({ job: Job, created: z.boolean() }),
      alternative: { status: 201, description: 'Job created', when: (out: { created: boolean }) => out.created },
      errors: NOT_ENABLED,
      handler: (input, caller) => updates.startForHost(input.host_id, caller),
    }),
    defineOperation({
      id: 'agents.hostConfig',
      summary: 'A host’s desired agent configuration',
      role: 'operator',
      scope: { host: (input) => input.host_id, notFound: (input) => hostNotFound(input.host_id) },
      method: 'GET',
      path: '/api/v1/hosts/{host_id}/agent-config',
      envelope: 'config',
      input: HostInput,
      output: z.record(z.string(), z.unknown()),
      handler: (input) => updates.hostConfig(input.host_id),
    }),
    defineOperation({
      id: 'agents.setHostConfig',
      summary: 'Set a host’s desired agent configuration',
      role: 'admin',
      method: 'PUT',
      path: '/api/v1/hosts/{host_id}/agent-config',
      restBody: 'config',
      envelope: 'config',
      input: HostInput.extend({ config: AgentConfig }),
      output: z.record(z.string(), z.unknown()),
      handler: (input, caller) => updates.setHostConfig(input.host_id, input.config, caller),
    }),
  ];
}
