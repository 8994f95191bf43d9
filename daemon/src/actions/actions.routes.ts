import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AgentCommandResultSchema, toValidationIssues, trimmedText } from '../../../shared/src/index.js';
import { type ApiKeyService, type KeyAgents, requestKey } from '../apikeys/index.js';
import { apiKeyFromHeaders, clientAddress, sendJson } from '../http/index.js';
import { AppError } from '../errors.js';
import type { CommandsService } from './commands.service.js';

const AgentPollQuery = z.object({ agent_instance_id: trimmedText(256) });
const AgentResultQuery = z.object({ agent_instance_id: trimmedText(256).optional() });
const CommandIdParam = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** Agent input that does not parse: 422, which the agent treats as final. */
function agentInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw new AppError('command/invalid_request', 'The request does not match the agent command API', { details: toValidationIssues(r.error) });
  return r.data;
}

export interface ActionsRoutesDeps {
  commands: CommandsService;
  apiKeys: ApiKeyService;
  keyAgents: KeyAgents;
  logger: Logger;
}

/**
 * The agent command channel (agent API key: `Authorization: Bearer` or `X-API-Key`, speaking
 * only for its own installation: 403 `apikey/host_mismatch` otherwise, which the agent logs and
 * does not retry). The operators' remote actions are in `actions.operations.ts`.
 */
export function createActionsRoutes(deps: ActionsRoutesDeps): express.Router {
  const { commands } = deps;
  const r = express.Router();

  const agent = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const presented = apiKeyFromHeaders(req.headers);
      const key = presented ? await deps.apiKeys.verify(presented) : null;
      if (!key) {
        deps.logger.warn({ ip: clientAddress(req), key_presented: presented !== null, path: req.path }, 'agent command call unauthorized');
        throw new AppError('auth/unauthorized', 'A valid agent API key is required');
      }
      res.locals.agentKey = key;
      next();
    } catch (err) {
      next(err);
    }
  };

  r.get('/api/v1/agent/commands', agent, async (req, res) => {
    const { agent_instance_id } = agentInput(AgentPollQuery, req.query);
    const key = requestKey(res);
    await deps.keyAgents.assertSpeaksFor(key, agent_instance_id);
    sendJson(res, 200, { commands: await commands.poll(agent_instance_id, key) });
  });
  r.post('/api/v1/agent/commands/:id/result', agent, async (req, res) => {
    const id = agentInput(CommandIdParam, req.params.id);
    const { agent_instance_id } = agentInput(AgentResultQuery, req.query);
    const body = agentInput(AgentCommandResultSchema, req.body);
    const key = requestKey(res);
    if (agent_instance_id !== undefined) await deps.keyAgents.assertSpeaksFor(key, agent_instance_id);
    // Without an installation named, the command's own is checked by the store: only the key it was handed to may answer.
    const view = await commands.result(
      id,
      { key, agentInstanceId: agent_instance_id ?? null },
      { status: body.status === 'failed' ? 'failed' : 'succeeded', stdout: body.stdout, stderr: body.stderr },
    );
    sendJson(res, 200, { id: view.id, state: view.state });
  });

  return r;
}
