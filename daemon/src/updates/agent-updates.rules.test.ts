import { describe, expect, it } from 'vitest';
import { transitionFor } from './agent-updates.rules.js';

describe('update job moves of a rollback', () => {
  it('finishes a rollback only at the older target itself, an update at the target or later', () => {
    const rollback = { target_version: '2.1.7-SAC', from_version: '2.1.8-SAC', state: 'started' as const };
    const event = (product_version: string) => ({ type: 'agent.heartbeat', product_version, details: {} });
    expect(transitionFor(rollback, event('2.1.8-SAC'))).toBeNull();
    expect(transitionFor(rollback, event('2.1.7-SAC'))).toMatchObject({ to: 'success' });
    const update = { target_version: '2.1.8-SAC', from_version: '2.1.7-SAC', state: 'started' as const };
    expect(transitionFor(update, event('2.1.9-SAC'))).toMatchObject({ to: 'success' });
    expect(transitionFor(update, event('2.1.7-SAC'))).toBeNull();
  });
});
