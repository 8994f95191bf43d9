import { describe, expect, it } from 'vitest';
import { judgeSeries, warmupMinutes } from '../../scripts/bench/lib/soak-verdict.js';

describe('bench:soak growth verdict', () => {
  it('takes the first 20 % of the minutes, at least one, as warm-up', () => {
    expect([2, 5, 20].map(warmupMinutes)).toEqual([1, 1, 4]);
  });

  it('ignores the warm-up minutes, however high they start', () => {
    expect(judgeSeries([50, 90, 100, 100, 100, 100, 100, 100, 100, 100]).grows).toBe(false);
  });

  it('fails a series whose last third is more than 10 % above its first third', () => {
    const v = judgeSeries([100, 100, 100, 102, 104, 108, 112, 116, 120, 124]);
    expect(v).toEqual({ first: 102, last: 120, grows: true });
  });

  it('passes growth of 10 % or less', () => {
    expect(judgeSeries([100, 100, 100, 100, 104, 106, 108, 110, 110, 110]).grows).toBe(false);
  });

  it('is not failed by one noisy minute in either third once a third spans three minutes', () => {
    const flat = Array.from({ length: 20 }, () => 100);
    const spikeLate = flat.map((v, i) => (i === 18 ? 300 : v));
    const dipEarly = flat.map((v, i) => (i === 5 ? 10 : v));
    expect(judgeSeries(spikeLate).grows).toBe(false);
    expect(judgeSeries(dipEarly).grows).toBe(false);
  });

  it('ignores growth while the last third stays under the series floor', () => {
    expect(judgeSeries([1, 1, 1, 1, 1, 2, 2, 2, 3, 3], 5).grows).toBe(false);
    expect(judgeSeries([1, 1, 1, 1, 1, 2, 2, 6, 6, 6], 5).grows).toBe(true);
  });

  it('does not judge fewer than two minutes after warm-up', () => {
    expect(judgeSeries([100, 200])).toEqual({ first: null, last: null, grows: false });
  });
});
