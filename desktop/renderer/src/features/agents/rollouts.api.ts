import type { z } from 'zod';
import type { AgentPinSetSchema, AgentPinView, RolloutStartSchema, RolloutView } from '../../../../../shared/src/rollouts.schema';
import { call, trpc } from '../../api/trpc';

/** The operations may declare loose outputs; the daemon returns the shared views whole. */
export type Rollout = RolloutView;
export type RolloutRing = RolloutView['rings'][number];
export type RolloutRingHost = RolloutRing['hosts'][number];
export type AgentPin = AgentPinView;
export type RolloutStartInput = z.input<typeof RolloutStartSchema>;
export type AgentPinSetInput = z.input<typeof AgentPinSetSchema>;

export const rolloutsApi = {
  list: () => call(async () => (await trpc.rollouts.list.query({ limit: 50 })) as RolloutView[]),
  byId: (id: string) => call(async () => (await trpc.rollouts.byId.query({ id })) as RolloutView),
  start: (input: RolloutStartInput) => call(async () => (await trpc.rollouts.start.mutate(input)) as RolloutView),
  pause: (id: string) => call(async () => (await trpc.rollouts.pause.mutate({ id })) as RolloutView),
  resume: (id: string) => call(async () => (await trpc.rollouts.resume.mutate({ id })) as RolloutView),
  abort: (id: string) => call(async () => (await trpc.rollouts.abort.mutate({ id })) as RolloutView),
  rollbackHost: (id: string, hostId: string) => call(async () => (await trpc.rollouts.rollbackHost.mutate({ id, host_id: hostId })) as RolloutView),
  rollbackRing: (id: string, ring: number) => call(async () => (await trpc.rollouts.rollbackRing.mutate({ id, ring })) as RolloutView),
  pins: () => call(async () => (await trpc.agents.pins.query({})) as AgentPinView[]),
  setPin: (input: AgentPinSetInput) => call(async () => (await trpc.agents.setPin.mutate(input)) as AgentPinView),
  removePin: (id: string) => call(() => trpc.agents.removePin.mutate({ id })),
};
