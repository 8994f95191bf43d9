import { describe, expect, it } from 'vitest';
import { RolloutStartSchema } from '../../../../../shared/src/rollouts.schema';
import { hostRollbackable, newRolloutForm, ringCircles, ringRollbackable, rolloutActions, rolloutCandidates, rolloutFormErrors, rolloutInput, soakLeft } from './rollouts.rules';

describe('the start-rollout form', () => {
  it('starts with the canary empty, waves 25/50/100 % soaking 30 min, and the daemon\'s health gate; the daemon takes it as it is', () => {
    const form = newRolloutForm('rdp-login-monitor');
    expect(rolloutFormErrors(form)).toEqual({});
    const input = rolloutInput(form);
    expect(input).toEqual({
      product: 'rdp-login-monitor',
      hosts: { all_outdated: true },
      canary: [],
      waves: [
        { percent: 25, soak_minutes: 30 },
        { percent: 50, soak_minutes: 30 },
        { percent: 100, soak_minutes: 30 },
      ],
      health: { heartbeat_minutes: 30, max_failure_percent: 0 },
    });
    expect(RolloutStartSchema.safeParse(input).success).toBe(true);
  });

  it('sends the version, the groups and the canary with its soak when given', () => {
    const form = { ...newRolloutForm('ssh-monitor'), version: '1.1.3-ipset', allOutdated: false, groupIds: ['g1'], canaryIds: ['h1'], canarySoak: '5' };
    const input = rolloutInput(form);
    expect(input).toMatchObject({ target_version: '1.1.3-ipset', hosts: { groups: ['g1'] }, canary: ['h1'], canary_soak_minutes: 5 });
    expect(RolloutStartSchema.safeParse(input).success).toBe(true);
  });

  it('names each field it refuses, as the daemon would', () => {
    const form = newRolloutForm('');
    form.allOutdated = false;
    form.canaryIds = ['h1'];
    form.canarySoak = '-1';
    form.waves = [
      { percent: '50', soak_minutes: '30' },
      { percent: '40', soak_minutes: 'x' },
      { percent: '101', soak_minutes: '10081' },
    ];
    form.heartbeatMinutes = '0';
    form.maxFailurePercent = '2.5';
    expect(rolloutFormErrors(form)).toEqual({
      product: 'required',
      hosts: 'noGroups',
      canarySoak: 'soak',
      'waves.1.percent': 'ascending',
      'waves.1.soak_minutes': 'soak',
      'waves.2.percent': 'percent',
      'waves.2.soak_minutes': 'soak',
      heartbeat: 'heartbeat',
      maxFailure: 'percent',
    });
    form.waves = [{ percent: '25', soak_minutes: '0' }];
    expect(rolloutFormErrors(form).waves).toBe('lastAll');
    form.waves = [];
    expect(rolloutFormErrors(form).waves).toBe('noWaves');
  });

  it('offers as canary the outdated hosts of the product, or the product\'s hosts in the groups', () => {
    const hosts = [
      { id: 'a', agent_product: 'p', outdated: true },
      { id: 'b', agent_product: 'p', outdated: false },
      { id: 'c', agent_product: 'q', outdated: true },
    ];
    expect(rolloutCandidates(hosts, 'p', null).map((h) => h.id)).toEqual(['a']);
    expect(rolloutCandidates(hosts, 'p', new Set(['b', 'c'])).map((h) => h.id)).toEqual(['b']);
  });
});

describe('a rollout on screen', () => {
  it('offers pause while running, resume when paused or halted, abort until it ends', () => {
    expect(rolloutActions('running')).toEqual({ pause: true, resume: false, abort: true });
    expect(rolloutActions('halted')).toEqual({ pause: false, resume: true, abort: true });
    expect(rolloutActions('paused')).toEqual({ pause: false, resume: true, abort: true });
    expect(rolloutActions('completed')).toEqual({ pause: false, resume: false, abort: false });
    expect(rolloutActions('aborted')).toEqual({ pause: false, resume: false, abort: false });
  });

  it('rolls back hosts the rollout moved or tried to, and a ring holding one', () => {
    expect(['waiting', 'updating', 'updated', 'failed', 'skipped', 'rolled_back'].filter((s) => hostRollbackable(s as never))).toEqual(['updated', 'failed']);
    const ring = (states: string[]) => ({ index: 0, kind: 'wave' as const, state: 'passed' as const, hosts: states.map((s, i) => ({ host_id: `h${i}`, state: s as never })) });
    expect(ringRollbackable(ring(['skipped', 'rolled_back']))).toBe(false);
    expect(ringRollbackable(ring(['skipped', 'updated']))).toBe(true);
  });

  it('counts a soaking ring\'s minutes left from when it finished, and nothing once the soak is over', () => {
    const ring = { state: 'soaking' as const, finished_at: '2026-11-27T10:00:00.000Z', soak_minutes: 30 };
    const at = (iso: string) => Date.parse(iso);
    expect(soakLeft(ring, at('2026-11-27T10:00:00.000Z'))).toBe(30);
    expect(soakLeft(ring, at('2026-11-27T10:29:01.000Z'))).toBe(1);
    expect(soakLeft(ring, at('2026-11-27T10:30:00.000Z'))).toBeNull();
    expect(soakLeft({ ...ring, state: 'passed' }, at('2026-11-27T10:00:00.000Z'))).toBeNull();
    expect(soakLeft({ ...ring, finished_at: null }, at('2026-11-27T10:00:00.000Z'))).toBeNull();
  });

  it('draws the rings canary innermost, a dot per host from the top clockwise, smaller dots on a crowded ring', () => {
    const hosts = (n: number, state = 'waiting') => Array.from({ length: n }, (_, i) => ({ host_id: `h${i}`, state: state as never }));
    const circles = ringCircles(
      [
        { index: 1, kind: 'wave', state: 'waiting', hosts: hosts(400) },
        { index: 0, kind: 'canary', state: 'passed', hosts: hosts(2, 'updated') },
      ],
      { inner: 30, step: 28, maxDot: 7 },
    );
    expect(circles.map((c) => [c.index, c.radius])).toEqual([
      [0, 30],
      [1, 58],
    ]);
    expect(circles[0].dots.map((d) => [d.x, d.y])).toEqual([
      [0, -30],
      [0, 30],
    ]);
    expect(circles[0].dotRadius).toBe(7);
    // 400 dots round a circle of 58: each gets under a unit of arc, so the smallest dot.
    expect(circles[1].dotRadius).toBe(1);
    expect(circles[1].dots).toHaveLength(400);
  });
});
