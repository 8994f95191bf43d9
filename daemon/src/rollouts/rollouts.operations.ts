import { z } from 'zod';
import {
  AgentPinListQuerySchema,
  AgentPinRemoveSchema,
  AgentPinSetSchema,
  RolloutListQuerySchema,
  RolloutRollbackHostSchema,
  RolloutRollbackRingSchema,
  RolloutStartSchema,
  type RolloutView,
} from '../../../shared/src/index.js';
import { ByIdInput, defineOperation, type Caller } from '../http/index.js';
import { rolloutNotFound, type RolloutsService } from './rollouts.service.js';

const Rollout = z.looseObject({ id: z.string(), product: z.string(), target_version: z.string(), state: z.string(), current_ring: z.number(), rings: z.array(z.looseObject({ index: z.number() })) });
const Pin = z.looseObject({ id: z.string(), product: z.string(), max_version: z.string() });
const CHANGE = { '404': 'No such rollout', '409': 'The rollout is not in a state that allows this' };

/** `rollouts.<verb>`: `POST /api/v1/rollouts/{id}/<verb>` (admin), answering the rollout after the change. */
function stateChange<const V extends string>(verb: V, summary: string, act: (id: string, caller: Caller) => Promise<RolloutView>) {
  return defineOperation({
    id: `rollouts.${verb}`,
    summary,
    role: 'admin',
    method: 'POST',
    path: `/api/v1/rollouts/{id}/${verb}`,
    input: ByIdInput,
    output: Rollout,
    errors: CHANGE,
    handler: (input, caller) => act(input.id, caller),
  });
}

/**
 * Staged agent rollouts and version pins. Any signed-in user reads rollouts (a caller limited to
 * host groups: only those all of whose hosts are theirs) and pins; admins start, pause, resume,
 * abort and roll back rollouts and set pins.
 */
export function rolloutsOperations(rollouts: RolloutsService) {
  // A limited caller reads a rollout only when all its hosts are theirs; otherwise it does not exist for them.
  const scopeOfRollout = {
    host: (input: { id: string }) => rollouts.hostsOf(input.id),
    notFound: (input: { id: string }) => rolloutNotFound(input.id),
  };
  return [
    defineOperation({
      id: 'rollouts.list',
      summary: 'Staged agent rollouts, newest first',
      role: 'operator',
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/rollouts',
      envelope: 'rollouts',
      input: RolloutListQuerySchema,
      output: z.array(Rollout),
      handler: (input, caller) => rollouts.list(input, caller.scope ?? null),
    }),
    defineOperation({
      id: 'rollouts.byId',
      summary: 'One staged agent rollout with its rings and hosts',
      role: 'operator',
      scope: scopeOfRollout,
      method: 'GET',
      path: '/api/v1/rollouts/{id}',
      input: ByIdInput,
      output: Rollout,
      handler: (input) => rollouts.byId(input.id),
    }),
    defineOperation({
      id: 'rollouts.start',
      summary: 'Start a staged rollout of an agent release',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/rollouts',
      status: 201,
      input: RolloutStartSchema,
      output: Rollout,
      errors: { '404': 'A named host group does not exist', '409': 'Updates are off, no host to move, or the policy needs a second person’s approval', '422': 'No release tag names the target version' },
      handler: (input, caller) => rollouts.start(input, caller),
    }),
    stateChange('pause', 'Pause a running rollout (no further ring starts)', (id, caller) => rollouts.pause(id, caller)),
    stateChange('resume', 'Resume a paused or halted rollout', (id, caller) => rollouts.resume(id, caller)),
    stateChange('abort', 'Abort a rollout; its update jobs no agent was offered yet are cancelled', (id, caller) => rollouts.abort(id, caller)),
    defineOperation({
      id: 'rollouts.rollbackHost',
      summary: 'Roll one host of a rollout back to the previous release',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/rollouts/{id}/hosts/{host_id}/rollback',
      input: RolloutRollbackHostSchema,
      output: Rollout,
      errors: { '404': 'No such rollout, or the host is not one of its hosts', '409': 'No previous release is known, or updates are off' },
      handler: (input, caller) => rollouts.rollbackHost(input.id, input.host_id, caller),
    }),
    defineOperation({
      id: 'rollouts.rollbackRing',
      summary: 'Roll every updated host of one ring back to the previous release',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/rollouts/{id}/rings/{ring}/rollback',
      input: RolloutRollbackRingSchema,
      output: Rollout,
      errors: { '404': 'No such rollout or ring', '409': 'No host of the ring was updated, no previous release is known, or updates are off' },
      handler: (input, caller) => rollouts.rollbackRing(input.id, input.ring, caller),
    }),
    defineOperation({
      id: 'agents.pins',
      summary: 'Agent version pins (per group or host)',
      role: 'operator',
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/agent-pins',
      envelope: 'pins',
      input: AgentPinListQuerySchema,
      output: z.array(Pin),
      handler: (input, caller) => rollouts.pins(input.product, caller.scope ?? null),
    }),
    defineOperation({
      id: 'agents.setPin',
      summary: 'Pin a product’s maximum version for a group or a host (replaces its pin)',
      role: 'admin',
      method: 'PUT',
      path: '/api/v1/agent-pins',
      input: AgentPinSetSchema,
      output: Pin,
      errors: { '404': 'No such group or host' },
      handler: (input, caller) => rollouts.setPin(input, caller),
    }),
    defineOperation({
      id: 'agents.removePin',
      summary: 'Remove an agent version pin',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/agent-pins/{id}',
      status: 204,
      input: AgentPinRemoveSchema,
      output: z.object({ removed: z.literal(true) }),
      errors: { '404': 'No such pin' },
      handler: async (input, caller) => {
        await rollouts.removePin(input.id, caller);
        return { removed: true as const };
      },
    }),
  ];
}
