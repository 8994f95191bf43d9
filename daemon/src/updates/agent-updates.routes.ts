import { createReadStream } from 'node:fs';
import express from 'express';
import { z } from 'zod';
import { type ApiKeyService, type KeyAgents, requestKey } from '../apikeys/index.js';
import { type Authenticator, parseInput, requireAgentKey, requireUser, restActor, sendJson } from '../http/index.js';
import { AGENT_UPDATE_STATES } from '../store/index.js';
import type { AgentUpdatesService } from './agent-updates.service.js';

export const AgentUpdatesQuery = z.object({
  host_id: z.string().min(1).max(64).optional(),
  state: z.enum(AGENT_UPDATE_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const ProductInput = z.strictObject({ product: z.string().min(1).max(64) });
/** A desired agent configuration: a flat-ish JSON object, bounded. */
export const AgentConfigInput = z
  .record(z.string().min(1).max(128), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 65_536, 'must be at most 64 KiB as JSON');
const PollQuery = z.object({ agent_instance_id: z.string().min(1).max(128) });

/**
 * Agent updates over REST. Agents: `GET /api/v1/agent/poll` (an API key that speaks for the
 * installation, else 403) and `GET /api/v1/agent/rdp-bundle/{token}` (the token is the credential,
 * issued only by that poll or to the host by an admin's push). Operators: the job list
 * and a host's desired configuration. Admins: start updates, edit the configuration.
 */
export function createAgentUpdatesRoutes(
  updates: AgentUpdatesService,
  deps: { authenticator: Authenticator; apiKeys: ApiKeyService; keyAgents: KeyAgents; publicUrl: string | undefined; basePath: string },
): express.Router {
  const r = express.Router();
  const operator = requireUser(deps.authenticator, 'operator');
  const admin = requireUser(deps.authenticator, 'admin');
  const agent = requireAgentKey(deps.apiKeys);

  r.get('/api/v1/agent/poll', agent, async (req, res) => {
    const { agent_instance_id } = parseInput(PollQuery, req.query);
    await deps.keyAgents.assertSpeaksFor(requestKey(res), agent_instance_id);
    const base = deps.publicUrl ?? `${req.protocol}://${req.get('host')}${deps.basePath}`;
    sendJson(res, 200, await updates.poll(agent_instance_id, (token) => `${base}/api/v1/agent/rdp-bundle/${token}`));
  });
  r.get('/api/v1/agent/rdp-bundle/:token', async (req, res) => {
    const bundle = await updates.bundleByToken(String(req.params.token));
    res.status(200).set({
      'Content-Type': bundle.contentType,
      'Content-Disposition': `attachment; filename="${bundle.filename}"`,
      'X-Content-SHA256': bundle.sha256,
      'Cache-Control': 'no-store',
    });
    createReadStream(bundle.file).pipe(res);
  });
  r.get('/api/v1/agent-updates', operator, async (req, res) => {
    sendJson(res, 200, { jobs: await updates.list(parseInput(AgentUpdatesQuery, req.query)) });
  });
  r.get('/api/v1/agent-updates/:id', operator, async (req, res) => {
    sendJson(res, 200, await updates.byId(String(req.params.id)));
  });
  r.post('/api/v1/agent-updates', admin, async (req, res) => {
    const { product } = parseInput(ProductInput, req.body);
    const started = await updates.startForProduct(product, restActor(req, res));
    sendJson(res, started.created > 0 ? 201 : 200, started);
  });
  r.post('/api/v1/agent-updates/:id/push', admin, async (req, res) => {
    sendJson(res, 200, await updates.pushNow(String(req.params.id), restActor(req, res)));
  });
  r.post('/api/v1/hosts/:id/agent-update', admin, async (req, res) => {
    const { job, created } = await updates.startForHost(String(req.params.id), restActor(req, res));
    sendJson(res, created ? 201 : 200, { job, created });
  });
  r.get('/api/v1/hosts/:id/agent-config', operator, async (req, res) => {
    sendJson(res, 200, { config: await updates.hostConfig(String(req.params.id)) });
  });
  r.put('/api/v1/hosts/:id/agent-config', admin, async (req, res) => {
    const config = parseInput(AgentConfigInput, req.body);
    sendJson(res, 200, { config: await updates.setHostConfig(String(req.params.id), config, restActor(req, res)) });
  });
  return r;
}
