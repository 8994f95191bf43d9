import { describe, expect, it } from 'vitest';
import { dueStep, isFinalStep, totalSteps } from './escalation.rules.js';

const MIN = 60_000;
const policy = { interval_minutes: 15, max_repeats: 4, final_channels: [], final_emails: [], group_ids: [] };

describe('escalation steps', () => {
  it('re-notifies every interval up to max_repeats, then stops', () => {
    expect(dueStep(policy, 0, 0, 14 * MIN)).toBeNull();
    expect(dueStep(policy, 0, 0, 15 * MIN)).toBe(1);
    expect(dueStep(policy, 0, 1, 29 * MIN)).toBeNull();
    expect(dueStep(policy, 0, 1, 30 * MIN)).toBe(2);
    expect(dueStep(policy, 0, 4, 600 * MIN)).toBeNull();
    expect(totalSteps(policy)).toBe(4);
  });

  it('takes only the latest step after a gap, and adds a final step when it names extra targets', () => {
    expect(dueStep(policy, 0, 1, 61 * MIN)).toBe(4);
    const withFinal = { ...policy, final_emails: ['boss@example.test'] };
    expect(totalSteps(withFinal)).toBe(5);
    expect(dueStep(withFinal, 0, 4, 75 * MIN)).toBe(5);
    expect(isFinalStep(withFinal, 5)).toBe(true);
    expect(isFinalStep(withFinal, 4)).toBe(false);
    expect(isFinalStep(policy, 4)).toBe(false);
  });
});
