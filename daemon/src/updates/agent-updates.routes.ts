import { createReadStream } from 'node:fs';
import express from 'express';
import { z } from 'zod';
import { type ApiKeyService, type KeyAgents, requestKey } from '../apikeys/index.js';
import { parseInput, requireAgentKey, sendJson } from '../http/index.js';
import type { AgentUpdatesService } from './agent-updates.service.js';

const PollQuery = z.object({ agent_instance_id: z.string().min(1).max(128) });

/**
 * Agent updates, the agents' side: `GET /api/v1/agent/poll` (an API key that speaks for the
 * installation, else 403) and `GET /api/v1/agent/rdp-bundle/{token}` (the token is the credential,
 * issued only by that poll or to the host by an admin's push). The console's side is in
 * `updates.operations.ts`.
 */
export function createAgentUpdatesRoutes(
  updates: AgentUpdatesService,
  deps: { apiKeys: ApiKeyService; keyAgents: KeyAgents; publicUrl: string | undefined; basePath: string },
): express.Router {
  const r = express.Router();
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
  return r;
}
