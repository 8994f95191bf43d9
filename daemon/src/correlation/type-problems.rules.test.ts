import { describe, expect, it } from 'vitest';
import { CorrelationSettingsSchema, DEFAULT_TYPE_PROBLEMS, type TypeProblemChoice } from '../../../shared/src/index.js';
import { adminUserKey, typeProblemChoice } from './type-problems.rules.js';

const CHOICES: Record<string, TypeProblemChoice> = { rdp: 'count', 'rdp.login.failed': 'never', 'rdp.shadow.*': 'open', 'ssh.ip.banned': 'count' };
const ADMINS = new Set(['deploy', 'svc-sac']);

describe('typeProblemChoice', () => {
  it.each<[string, string | null, TypeProblemChoice]>([
    ['rdp.login.failed', null, 'never'], // exact type over its prefix
    ['rdp.bruteforce.burst', null, 'count'], // prefix
    ['rdp.shadow.control.started', null, 'open'], // the longer prefix wins
    ['ssh.ip.banned', 'root', 'count'],
    ['smb.admin_share.access', null, 'open'], // not listed: opens
    ['privilege.sudo.command', 'deploy', 'never'], // routine administration by a known admin
    ['privilege.sudo.command', 'mallory', 'open'],
    ['winrm.session.started', 'CORP\\svc-sac', 'never'],
    ['smb.admin_share.access', 'Deploy@corp.example', 'never'],
    ['rdp.shadow.control.started', 'deploy', 'never'], // whatever the choice
    ['auth.account.locked', 'deploy', 'open'], // not administration: an admin's locked account matters
  ])('%s by %s → %s', (type, user, expected) => {
    expect(typeProblemChoice(type, user, CHOICES, ADMINS)).toBe(expected);
  });

  it('compares admin users without domain and case', () => {
    expect(['CORP\\Deploy', 'deploy@corp', 'DEPLOY'].map(adminUserKey)).toEqual(['deploy', 'deploy', 'deploy']);
  });

  it('defaults: gateway failures and bans count, every other agent type opens', () => {
    expect(CorrelationSettingsSchema.parse({}).type_problems).toEqual(DEFAULT_TYPE_PROBLEMS);
    const choose = (type: string) => typeProblemChoice(type, 'deploy', DEFAULT_TYPE_PROBLEMS, new Set());
    expect(['rdg.connection.failed', 'ssh.ip.banned', 'rdp.login.failed', 'ssh.login.failed', 'privilege.sudo.command', 'rdp.bruteforce.burst'].map(choose)).toEqual([
      'count',
      'count',
      'open',
      'open',
      'open',
      'open',
    ]);
  });
});
