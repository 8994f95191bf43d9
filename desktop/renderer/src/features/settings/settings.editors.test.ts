import { describe, expect, it } from 'vitest';
import { emptyRepoRow, formToPolicies, groupPoliciesToRows, openedPerRow, policiesToForm, reposToRows, rowsToGroupPolicies, rowsToRepos, rowsToTypeProblems, typeProblemsToRows } from './settings.editors';

const stored = [
  { product: 'ssh-monitor', url: 'https://git.example/ssh.git', branch: null, token: { set: true }, version_from: 'file', version_file: 'ssh-monitor' },
  { product: 'rdp-login-monitor', url: 'https://git.example/rdp.git', branch: 'main', token: { set: true }, version_from: 'tag', version_file: null },
];

describe('git repositories editor', () => {
  it('keeps stored tokens of untouched rows and sends new rows and typed tokens', () => {
    const original = reposToRows(stored);
    const rows = reposToRows(stored);
    rows[1].token = 'new-token';
    rows.push({ ...emptyRepoRow(), product: 'winlogon', url: 'https://git.example/w.git' });
    const { value, problems } = rowsToRepos(rows, original);
    expect(problems).toEqual([]);
    expect(value.map((v) => v.token)).toEqual([{ set: true }, 'new-token', null]);
    expect(value[0]).toMatchObject({ branch: null, version_from: 'file', version_file: 'ssh-monitor' });
    expect(value[2]).toMatchObject({ product: 'winlogon', version_from: 'tag', version_file: null });
  });

  it('asks for the token again when a row moved or its URL changed, never carrying it to another repository', () => {
    const original = reposToRows(stored);
    const removed = reposToRows(stored).slice(1);
    expect(rowsToRepos(removed, original).problems).toEqual([{ row: 0, field: 'token', message: 'token' }]);
    const moved = reposToRows(stored);
    moved[0].url = 'https://evil.example/x.git';
    expect(rowsToRepos(moved, original).problems).toEqual([{ row: 0, field: 'token', message: 'token' }]);
    moved[0].clearToken = true;
    expect(rowsToRepos(moved, original)).toMatchObject({ problems: [], value: [{ token: null }, { token: { set: true } }] });
  });

  it('reports duplicate products and what the shared schema refuses, per row', () => {
    const rows = [{ ...emptyRepoRow(), product: 'a', url: 'u' }, { ...emptyRepoRow(), product: 'a', url: '' }];
    const { problems } = rowsToRepos(rows, []);
    expect(problems).toContainEqual({ row: 1, field: 'product', message: 'duplicate' });
    expect(problems.some((p) => p.row === 1 && p.field === 'url')).toBe(true);
  });
});

describe('escalation editor', () => {
  it('round-trips the policies of the severities turned on', () => {
    const value = { critical: { interval_minutes: 15, max_repeats: 2, final_channels: ['smtp'], final_emails: ['boss@example.com'], group_ids: ['g-1'] } };
    const form = policiesToForm(value);
    expect(form.high.on).toBe(false);
    expect(formToPolicies(form)).toEqual({ value, problems: {} });
    form.high.on = true;
    form.high.interval_minutes = '0';
    form.high.final_emails = 'not-an-address';
    const { problems } = formToPolicies(form);
    expect(Object.keys(problems).sort()).toEqual(['high.final_emails', 'high.interval_minutes']);
  });
});

describe('per-type problem choices editor', () => {
  it('sends the rows as a map and names the row of a bad or repeated pattern', () => {
    const rows = typeProblemsToRows({ 'rdg.connection.failed': 'count', 'ssh.ip.banned': 'count' });
    expect(rowsToTypeProblems(rows)).toEqual({ value: { 'rdg.connection.failed': 'count', 'ssh.ip.banned': 'count' }, problems: [] });
    rows.push({ pattern: ' RDP Login ', choice: 'never' }, { pattern: 'ssh.ip.banned ', choice: 'open' });
    expect(rowsToTypeProblems(rows).problems).toEqual([
      { row: 3, field: 'pattern', message: 'duplicate' },
      { row: 2, field: 'pattern', message: '"RDP Login" must be an event type or dotted prefix such as rdp.login or ssh.*' },
    ]);
  });

  it('adds the week’s problems of each type to the row that decides for it; the rest are listed', () => {
    const rows = typeProblemsToRows({ rdp: 'count', 'rdp.login.failed': 'never', 'ssh.ip.banned': 'count' });
    const week = openedPerRow(rows, [
      { type: 'rdp.login.failed', rule: 'severity', opened: 9 },
      { type: 'rdp.shadow.control.started', rule: 'severity', opened: 2 },
      { type: 'rdp.bruteforce.burst', rule: 'severity', opened: 1 },
      { type: 'privilege.sudo.command', rule: 'severity', opened: 4 },
      { type: 'host.activity', rule: 'host_activity', opened: 5 },
      { type: 'rdg.flap', rule: 'rdg_flap', opened: 3 },
    ]);
    expect(week).toEqual({ perRow: [3, 9, 0], unlisted: [{ type: 'privilege.sudo.command', rule: 'severity', opened: 4 }], hostActivity: 5 });
  });
});

describe('approval policy per group editor', () => {
  it('sends the rows as entries with the actions in their canonical order, and names what stops a save', () => {
    const rows = groupPoliciesToRows([{ group: 'g1', actions: ['host_delete'] }]);
    rows[0].actions.push('session_logoff');
    expect(rowsToGroupPolicies(rows)).toEqual({ value: [{ group: 'g1', actions: ['session_logoff', 'host_delete'] }], problems: [] });
    rows.push({ group: 'g1', actions: [] }, { group: '', actions: ['fleet_ban'] });
    expect(rowsToGroupPolicies(rows).problems).toEqual([
      { row: 1, field: 'group', message: 'duplicate' },
      { row: 1, field: 'actions', message: 'actions' },
      { row: 2, field: 'group', message: 'group' },
    ]);
  });
});
