import { describe, expect, it } from 'vitest';
import { reportCsv } from './reports.csv';

describe('daily report CSV', () => {
  it('has a header and one quoted-as-needed line per host, lists joined (and quoted, for spreadsheets splitting on ;)', () => {
    const csv = reportCsv([
      { hostname: 'RDS01', platform: 'rdp', successful_logins: 14, failed_logins: 37, active_bans: 0, top_failed_ips: ['203.0.113.9 — 120'], active_users: ['ivanov', 'petrova'], reported_at: '2026-11-23T06:00:00.000Z' },
      { hostname: 'web,01', platform: 'ssh', successful_logins: 1, failed_logins: 0, active_bans: 4, top_failed_ips: [], active_users: [], reported_at: '2026-11-23T06:01:00.000Z' },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'hostname,platform,successful_logins,failed_logins,active_bans,top_failed_ips,active_users,reported_at',
      'RDS01,rdp,14,37,0,203.0.113.9 — 120,"ivanov; petrova",2026-11-23T06:00:00.000Z',
      '"web,01",ssh,1,0,4,,,2026-11-23T06:01:00.000Z',
      '',
    ]);
  });
});
