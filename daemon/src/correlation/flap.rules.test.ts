import { describe, expect, it } from 'vitest';
import { gatewayRole, isFlap, type GatewaySide } from './flap.rules.js';

const opened: GatewaySide = { event_id: 'o', host_id: 'gw', occurred_ms: 10_000, user: 'corp\\ivanov', internal_ip: '10.0.0.5', external_ip: '203.0.113.9' };
const closed = (patch: Partial<GatewaySide>): GatewaySide => ({ ...opened, event_id: 'c', occurred_ms: 15_000, ...patch });

describe('gatewayRole', () => {
  it.each([
    ['rdg.connection.success', 'opened'],
    ['rdg.connection.disconnected', 'closed'],
    ['rdg.connection.failed', 'closed'],
    ['rdp.login.success', null],
  ])('%s → %s', (type, role) => expect(gatewayRole(type)).toBe(role));
});

describe('isFlap', () => {
  it.each<[string, Partial<GatewaySide>, boolean]>([
    ['303 5 s after', {}, true],
    ['303 exactly 1 s after', { occurred_ms: 11_000 }, true],
    ['303 exactly 10 s after', { occurred_ms: 20_000 }, true],
    ['303 0.999 s after', { occurred_ms: 10_999 }, false],
    ['303 10.001 s after', { occurred_ms: 20_001 }, false],
    ['303 before the 302', { occurred_ms: 5_000 }, false],
    ['another user', { user: 'corp\\petrov' }, false],
    ['another internal ip', { internal_ip: '10.0.0.6' }, false],
    ['another gateway', { host_id: 'gw2' }, false],
    ['another external ip', { external_ip: '198.51.100.1' }, false],
    ['no external ip on the 303', { external_ip: '' }, true],
  ])('%s → %s', (_name, patch, expected) => {
    expect(isFlap(opened, closed(patch))).toBe(expected);
  });
});
