import { describe, expect, it } from 'vitest';
import {
  agentVersionStatus,
  compareAgentVersions,
  isOutdated,
  newestSeenByProduct,
  newestVersion,
  parseAgentVersion,
  versionFromFile,
  versionFromTag,
} from './agent-version.rules.js';

describe('agent versions (not semver)', () => {
  it.each([
    ['2.1.7-SAC', '2.1.8-SAC', -1],
    ['2.1.8-SAC', '2.1.7-SAC', 1],
    ['2.1.7-SAC', '2.1.7-SAC', 0],
    ['2.1.10-SAC', '2.1.9-SAC', 1],
    ['2.1', '2.1.0', -1],
    ['2.1.7', '2.1.7-SAC', -1],
    ['1.1.2-ipset', '1.1.2', 1],
    ['1.1.2-ipset', '1.1.3', -1],
    // then the whole string, ordinal (the agent contract's rule)
    ['1.1.2-rc2', '1.1.2-rc10', 1],
    ['1.1.2-SAC', '1.1.2-sac', -1],
    ['v2.1.7-SAC', '2.1.7-SAC', 0],
    ['v2.0.0', '1.99.99', 1],
    ['10.0', '9.9.9-SAC', 1],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(compareAgentVersions(a, b)).toBe(expected);
  });

  it.each(['', 'SAC', 'latest', '-1.2', '1..2', 'N/A', '-'])('"%s" is not a version', (v) => {
    expect(parseAgentVersion(v)).toBeNull();
    expect(compareAgentVersions(v, '1.0.0')).toBeNull();
  });

  it('flags an agent outdated only against a newer, parseable latest version', () => {
    expect(isOutdated('2.1.7-SAC', '2.1.8-SAC')).toBe(true);
    expect(isOutdated('2.1.8-SAC', '2.1.8-SAC')).toBe(false);
    expect(isOutdated('2.1.9-SAC', '2.1.8-SAC')).toBe(false);
    expect(isOutdated('N/A', '2.1.8-SAC')).toBe(false);
    expect(isOutdated('2.1.7-SAC', null)).toBe(false);
  });

  it('picks the newest release tag and ignores other tags', () => {
    const tags = ['v2.1.7-SAC', 'v2.1.8-SAC', 'v2.1.10-SAC', 'nightly', 'release/v2.1.9-SAC'];
    expect(newestVersion(tags.map(versionFromTag).filter((v): v is string => v !== null))).toBe('2.1.10-SAC');
    expect(versionFromTag('nightly')).toBeNull();
  });

  it('reads the version file of each product', () => {
    expect(versionFromFile('2.1.8-SAC\r\n')).toBe('2.1.8-SAC');
    expect(versionFromFile('\uFEFF2.1.8-SAC')).toBe('2.1.8-SAC');
    expect(versionFromFile('#!/bin/bash\n# ssh-monitor\nSSH_MONITOR_VERSION="1.1.2-ipset"\nmain() {}\n')).toBe('1.1.2-ipset');
    expect(versionFromFile('#!/bin/bash\necho hi\n')).toBeNull();
    expect(versionFromFile('')).toBeNull();
  });
});

describe('what is known of an agent version', () => {
  it.each([
    // agent, latest release, newest seen in the fleet, status
    ['2.1.7-SAC', null, '2.1.7-SAC', 'unknown'],
    ['2.1.5-SAC', null, '2.1.7-SAC', 'outdated'],
    ['2.1.8-SAC', '2.1.8-SAC', '2.1.8-SAC', 'up_to_date'],
    ['2.1.7-SAC', '2.1.8-SAC', '2.1.7-SAC', 'outdated'],
    ['2.1.7-SAC', '2.1.7-SAC', '2.1.9-SAC', 'outdated'],
    ['nightly', '2.1.8-SAC', '2.1.8-SAC', 'unknown'],
  ] as const)('%s with latest %s and fleet newest %s is %s', (agent, latest, newest, status) => {
    expect(agentVersionStatus(agent, latest, newest)).toBe(status);
  });

  it('takes the newest parsable version per product', () => {
    const seen = newestSeenByProduct([
      { agent_product: 'rdp-login-monitor', agent_version: '2.1.5-SAC' },
      { agent_product: 'rdp-login-monitor', agent_version: '2.1.10-SAC' },
      { agent_product: 'rdp-login-monitor', agent_version: '2.1.7-SAC' },
      { agent_product: 'ssh-monitor', agent_version: 'nightly' },
    ]);
    expect([...seen]).toEqual([['rdp-login-monitor', '2.1.10-SAC']]);
  });
});
