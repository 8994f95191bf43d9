import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export { AGENT_UPDATE_STATES, configText, parseConfig, productProgress, pushable, stateBadge, type AgentUpdateState } from './agents.rules';

export type AgentVersion = RouterOutputs['agents']['versions'][number];
export type AgentUpdateJob = RouterOutputs['agents']['updates'][number];
export type AgentUpdateQuery = NonNullable<RouterInputs['agents']['updates']>;

export const agentsApi = {
  versions: () => call(() => trpc.agents.versions.query()),
  refreshVersions: () => call(() => trpc.agents.refreshVersions.mutate()),
  jobs: (q: AgentUpdateQuery) => call(() => trpc.agents.updates.query(q)),
  updateHost: (hostId: string) => call(() => trpc.agents.updateHost.mutate({ host_id: hostId })),
  push: (jobId: string) => call(() => trpc.agents.pushUpdate.mutate({ job_id: jobId })),
  hostConfig: (hostId: string) => call(() => trpc.agents.hostConfig.query({ host_id: hostId })),
  setHostConfig: (hostId: string, config: Record<string, unknown>) => call(() => trpc.agents.setHostConfig.mutate({ host_id: hostId, config })),
};
