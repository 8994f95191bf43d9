import type { AgentUpdateJob, AgentUpdateState } from '../store/index.js';
import { compareAgentVersions } from './agent-version.rules.js';

/** States a job leaves when an agent's event arrives, and the state it reaches. */
export interface UpdateTransition {
  from: readonly AgentUpdateState[];
  to: AgentUpdateState;
}

/** States from which a job can still finish: an agent may report success after SAC started a push. */
const UNFINISHED: readonly AgentUpdateState[] = ['pending', 'started', 'fallback'];

/**
 * What an agent event means for its host's update job. The specification's `agent.update.started`,
 * `.success` and `.failed`; and, for the real Windows agent that sends none of them, an
 * `agent.lifecycle` event (`details.lifecycle = "updated"`) or heartbeat whose `product_version`
 * has reached the target — for a rollback (a target older than the version the job started from),
 * the target itself.
 */
export function transitionFor(
  job: Pick<AgentUpdateJob, 'target_version' | 'from_version' | 'state'>,
  event: { type: string; product_version: string; details: Record<string, unknown> },
): UpdateTransition | null {
  const rollback = job.from_version !== null && (compareAgentVersions(job.target_version, job.from_version) ?? 0) < 0;
  const compared = compareAgentVersions(event.product_version, job.target_version) ?? -1;
  const reached = rollback ? compared === 0 : compared >= 0;
  switch (event.type) {
    case 'agent.update.started':
      return { from: ['pending'], to: 'started' };
    case 'agent.update.success':
      return { from: UNFINISHED, to: 'success' };
    case 'agent.update.failed':
      return { from: ['pending', 'started'], to: 'failed' };
    default:
      return reached ? { from: UNFINISHED, to: 'success' } : null;
  }
}

/** Event types that can move an update job (the others are not looked at). */
export function mayMoveUpdateJob(type: string): boolean {
  return type.startsWith('agent.update.') || type === 'agent.lifecycle' || type === 'agent.heartbeat';
}
