import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../store/index.js';
import { MAX_IP_LINE, aggregateDailyReports, parseIpCount } from './reports.rules.js';
import { renderReportHtml } from './reports.render.js';

function report(host: string, type: 'report.daily.ssh' | 'report.daily.rdp', stats: Record<string, unknown>, occurred_ms: number, received_ms = occurred_ms): StoredEvent {
  return {
    event_id: `${host}-${occurred_ms}-${received_ms}`,
    host_id: `id-${host}`,
    type,
    severity: 'info',
    occurred_at: new Date(occurred_ms).toISOString(),
    occurred_ms,
    received_ms,
    actor_user: null,
    agent_version: '1',
    source_geo: null,
    event: { host: { hostname: host, os_family: 'linux' }, details: { stats } } as unknown as StoredEvent['event'],
  };
}

describe('parseIpCount', () => {
  it.each([
    ['203.0.113.45 — 29', { ip: '203.0.113.45', count: 29 }],
    ['203.0.113.45: 7', { ip: '203.0.113.45', count: 7 }],
    ['  12 198.51.100.4', { ip: '198.51.100.4', count: 12 }],
    ['2001:db8::1 — 3', { ip: '2001:db8::1', count: 3 }],
    ['10.0.0.1', { ip: '10.0.0.1', count: 1 }],
    ['203.0.113.45:29', { ip: '203.0.113.45', count: 29 }],
    ['2001:db8:: (4)', { ip: '2001:db8::', count: 4 }],
    ['[2001:db8::7]: 15', { ip: '2001:db8::7', count: 15 }],
    ['999.1.1.1 — 3', null],
    ['no address here', null],
  ])('%s', (line, expected) => {
    expect(parseIpCount(line)).toEqual(expected);
  });

  // An 80k-character entry took 11 s through the old regular expression. The parser reads a
  // bounded head of the line: the answer for the whole line is the answer for its head.
  it.each([
    ['hex run', 'a'.repeat(80_000) + ' 203.0.113.9 — 4'],
    ['colon run', '1:'.repeat(40_000)],
    ['digits', '1'.repeat(80_000)],
    ['address then junk', '203.0.113.9 — 4 ' + 'f:'.repeat(40_000)],
  ])('reads only a bounded head of an 80k-character entry (%s)', (_name, line) => {
    expect(line.length).toBeGreaterThanOrEqual(80_000);
    expect(parseIpCount(line)).toEqual(parseIpCount(line.slice(0, MAX_IP_LINE)));
  });

  it('finds the address and count in a long entry whose head holds them', () => {
    expect(parseIpCount('203.0.113.9 — 4 ' + 'f:'.repeat(40_000))).toEqual({ ip: '203.0.113.9', count: 4 });
    expect(parseIpCount('a'.repeat(80_000) + ' 203.0.113.9 — 4')).toBeNull();
  });
});

describe('aggregateDailyReports', () => {
  it('sums per host and in total, keeps the latest report of a host and kind, and ranks the failed IPs', () => {
    const events = [
      report('web-01', 'report.daily.ssh', { successful_logins: 3, failed_logins: 10, active_bans: 1, top_failed_ips: ['203.0.113.9 — 10'] }, 1000),
      // re-sent later (agent restart): replaces the first one, not added to it
      report('web-01', 'report.daily.ssh', { successful_logins: 12, failed_logins: 240, active_bans: 4, top_failed_ips: ['203.0.113.9 — 120', '198.51.100.4 — 80'], active_users: ['deploy'] }, 2000),
      report('RDS01', 'report.daily.rdp', { rdp_success: '14', rdp_failed: 37, active_bans: 'N/A', top_failed_ips: ['198.51.100.4 — 5', 42] }, 1500),
    ];
    const s = aggregateDailyReports(events, 0, 86_400_000);
    expect(s.hosts.map((h) => [h.hostname, h.platform, h.successful_logins, h.failed_logins, h.active_bans])).toEqual([
      ['RDS01', 'rdp', 14, 37, 0],
      ['web-01', 'ssh', 12, 240, 4],
    ]);
    expect(s.totals).toEqual({ hosts: 2, ssh_hosts: 1, rdp_hosts: 1, successful_logins: 26, failed_logins: 277, active_bans: 4 });
    expect(s.top_failed_ips).toEqual([
      { ip: '203.0.113.9', count: 120 },
      { ip: '198.51.100.4', count: 85 },
    ]);
    expect(s.period_to).toBe('1970-01-02T00:00:00.000Z');
  });

  it('renders an escaped HTML document, and says so when no agent reported', () => {
    const evil = report('<script>x</script>', 'report.daily.ssh', { successful_logins: 1, active_users: ['<img src=x onerror=alert(1)>'] }, 1000);
    const html = renderReportHtml(aggregateDailyReports([evil], 0, 1), { day: '2026-06-03', lang: 'ru', timeZone: 'UTC', generatedMs: 0 });
    expect(html).toContain('Ежедневный отчёт SSH/RDP за 2026-06-03');
    expect(html).not.toContain('<script>x');
    expect(html).not.toContain('<img');
    const empty = renderReportHtml(aggregateDailyReports([], 0, 1), { day: '2026-06-03', lang: 'en', timeZone: 'UTC', generatedMs: 0 });
    expect(empty).toContain('No daily agent reports were received in this period.');
  });

  it('shows user names without the agent\'s emoji prefix and lets a wide host table scroll', () => {
    const r = report('RDS01', 'report.daily.rdp', { successful_logins: 2, active_users: ['👤 ivanov', '👤️ petrova', 'deploy'] }, 1000);
    const html = renderReportHtml(aggregateDailyReports([r], 0, 1), { day: '2026-06-03', lang: 'en', timeZone: 'UTC', generatedMs: 0 });
    expect(html).toContain('ivanov<br>petrova<br>deploy');
    expect(html).not.toContain('👤');
    expect(html).toMatch(/<div style="overflow-x:auto[^"]*"><table/);
  });
});
