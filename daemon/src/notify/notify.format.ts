import { PROBLEM_FACTS_TOP, type EventNotice, type Language, type NotificationContent, type NotifyChannel, type ProblemFactCount, type ProblemNotice, type ReportSummary, type Severity } from '../../../shared/src/index.js';
import { phrases, type Phrases } from './notify.i18n.js';
import { localParts } from '../../../shared/src/index.js';
import type { MailContent } from './smtp.client.js';
import { TELEGRAM_MAX_LENGTH, type InlineButton } from './telegram.client.js';

/**
 * Message formats, one per channel (documented in README "Notifications"):
 * Telegram HTML text, e-mail subject + plain text + HTML, the versioned webhook JSON body and the
 * push payload. All user-supplied text is escaped; agents send Cyrillic and emoji, kept as is.
 */

/** Escapes text for HTML (e-mail, reports) and Telegram's HTML parse mode alike. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SEVERITY_MARK: Record<Severity, string> = { info: 'ℹ️', warning: '⚠️', high: '🔴', critical: '🚨' };

/** Version of the webhook body; bumped only on incompatible changes. */
export const WEBHOOK_BODY_VERSION = 1;

export interface FormatOptions {
  lang: Language;
  timeZone: string;
  /** The channel name shown in test messages. */
  channel: NotifyChannel;
}

function when(iso: string, tz: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${localParts(ms, tz).time} (${tz})`;
}

function eventFacts(e: EventNotice, p: Phrases): [string, string][] {
  const rows: [string, string][] = [[p.host, e.host_display ?? e.hostname]];
  if (e.actor_user) rows.push([p.user, e.actor_user]);
  if (e.ip) rows.push([p.ip, e.ip]);
  rows.push([p.time, e.occurred_at], [p.type, e.type]);
  return rows;
}

/** `203.0.113.7 (20), 198.51.100.4 (10)`: the first `limit` values with their event counts. */
function countList(list: readonly ProblemFactCount[], limit: number): string {
  return list
    .slice(0, limit)
    .map((f) => `${f.value} (${f.count})`)
    .join(', ');
}

/** The rows naming a problem's top addresses and users, and its hosts when they are not just its own. */
function topRows(pr: ProblemNotice, p: Phrases, limit: number): [string, string][] {
  const f = pr.facts;
  if (!f) return [];
  const rows: [string, string][] = [];
  if (f.addresses.length) rows.push([p.top_addresses, countList(f.addresses, limit)]);
  if (f.users.length) rows.push([p.top_users, countList(f.users, limit)]);
  if (f.hosts.length > 1 || (f.hosts.length === 1 && f.hosts[0].value !== pr.hostname)) rows.push([p.top_hosts, countList(f.hosts, limit)]);
  return rows;
}

function problemFacts(pr: ProblemNotice, p: Phrases, tz: string): [string, string][] {
  return [
    [p.host, pr.hostname],
    [p.events, String(pr.count)],
    ...topRows(pr, p, PROBLEM_FACTS_TOP),
    [p.first_seen, when(pr.first_seen, tz)],
    [p.last_seen, when(pr.last_seen, tz)],
    [p.type, `${pr.type} / ${pr.rule}`],
  ];
}

function reportLines(day: string, s: ReportSummary, p: Phrases): { title: string; totals: string; hosts: string[]; ips: string } {
  return {
    title: p.report_title(day),
    totals: `${p.report_hosts}: ${s.totals.hosts} · ${p.report_success}: ${s.totals.successful_logins} · ${p.report_failed}: ${s.totals.failed_logins} · ${p.report_bans}: ${s.totals.active_bans}`,
    hosts: s.hosts.map(
      (h) => `${h.hostname} (${h.platform}): ✔ ${h.successful_logins} · ✖ ${h.failed_logins} · ${p.report_bans.toLowerCase()} ${h.active_bans}`,
    ),
    ips: s.top_failed_ips.map((t) => `${t.ip} (${t.count})`).join(', '),
  };
}

function problemHeadline(c: Extract<NotificationContent, { kind: 'problem' }>, p: Phrases): string {
  if (c.action === 'escalated') return p.problem_escalated(c.step);
  return c.action === 'opened' ? p.problem_opened : p.problem_resolved;
}

/** Headline and fact rows of any notification, shared by the text-like formats. */
function outline(c: NotificationContent, o: FormatOptions): { mark: string; headline: string; title: string; body: string | null; facts: [string, string][] } {
  const p = phrases(o.lang);
  switch (c.kind) {
    case 'event':
      return {
        mark: SEVERITY_MARK[c.event.severity],
        headline: `${p.severity[c.event.severity]} · ${c.event.hostname}`,
        title: c.event.title,
        body: c.event.summary,
        facts: eventFacts(c.event, p),
      };
    case 'problem':
      return {
        mark: c.action === 'resolved' ? '✅' : c.action === 'escalated' ? '⏰' : SEVERITY_MARK[c.problem.severity],
        headline: `${problemHeadline(c, p)} · ${p.severity[c.problem.severity]} · ${c.problem.hostname}`,
        title: c.problem.title,
        body: null,
        facts: problemFacts(c.problem, p, o.timeZone),
      };
    case 'report': {
      const r = reportLines(c.day, c.summary, p);
      return { mark: '📊', headline: r.title, title: r.totals, body: r.hosts.length ? r.hosts.join('\n') : p.report_no_data, facts: r.ips ? [[p.report_top_ips, r.ips]] : [] };
    }
    case 'test':
      return { mark: '🧪', headline: p.test_title, title: p.test_body(o.channel, c.requested_by), body: null, facts: [] };
    case 'login_locked':
      return {
        mark: '🔒',
        headline: p.lock_title,
        title: p.lock_body(c.username, c.attempts, c.ip ?? p.unknown_ip),
        body: null,
        facts: [[p.lock_until, when(c.locked_until, o.timeZone)]],
      };
    case 'approval':
      return {
        mark: '🔐',
        headline: p.approval_title,
        title: c.approval.summary,
        body: p.approval_by(c.approval.requested_by, c.approval.reason),
        facts: [
          [p.approval_hosts, c.approval.hostnames.join(', ')],
          [p.approval_expires, when(c.approval.expires_at, o.timeZone)],
        ],
      };
  }
}

/** Telegram text in HTML parse mode, cut to Telegram's limit. */
export function telegramMessage(c: NotificationContent, o: FormatOptions): string {
  const x = outline(c, o);
  const lines = [`${x.mark} <b>${escapeHtml(x.headline)}</b>`, `<b>${escapeHtml(x.title)}</b>`];
  if (x.body) lines.push(...escapeHtml(x.body).split('\n'));
  for (const [k, v] of x.facts) lines.push(`${escapeHtml(k)}: <code>${escapeHtml(v)}</code>`);
  let text = lines.join('\n');
  // Cutting inside a tag or entity would make Telegram reject the message: whole lines go, last first.
  while (text.length > TELEGRAM_MAX_LENGTH && lines.length > 2) {
    lines.pop();
    text = `${lines.join('\n')}\n…`;
  }
  return text;
}

/**
 * Inline buttons under a Telegram problem message that still needs someone: Acknowledge and
 * Resolve (presses come back as updates, see telegram/), and Open in console when the public URL is known.
 * `callback_data` is `ack:<problem id>` / `res:<problem id>` (Telegram allows 64 bytes).
 */
export function telegramKeyboard(c: NotificationContent, o: FormatOptions & { publicUrl: string | null }): InlineButton[][] {
  if (c.kind !== 'problem' || c.action === 'resolved') return [];
  const p = phrases(o.lang);
  const row: InlineButton[] = [
    { text: p.button_ack, callback_data: `ack:${c.problem.id}` },
    { text: p.button_resolve, callback_data: `res:${c.problem.id}` },
  ];
  if (o.publicUrl) row.push({ text: p.button_open, url: `${o.publicUrl}/problems/${encodeURIComponent(c.problem.id)}` });
  return [row];
}

/** E-mail subject, plain text and HTML; a report mails its stored HTML document. */
export function mailMessage(c: NotificationContent, o: FormatOptions, reportHtml: string | null): MailContent {
  const x = outline(c, o);
  const subject = `[SAC] ${x.headline}${c.kind === 'report' || c.kind === 'test' ? '' : ` · ${x.title}`}`.slice(0, 250);
  const textLines = [x.headline, '', x.title];
  if (x.body) textLines.push('', x.body);
  if (x.facts.length) textLines.push('', ...x.facts.map(([k, v]) => `${k}: ${v}`));
  const html =
    reportHtml ??
    `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#1f2933">` +
      `<p style="font-size:13px;color:#52606d">${x.mark} ${escapeHtml(x.headline)}</p>` +
      `<h2 style="font-size:18px;margin:4px 0 12px">${escapeHtml(x.title)}</h2>` +
      (x.body ? `<p style="white-space:pre-wrap">${escapeHtml(x.body)}</p>` : '') +
      (x.facts.length
        ? `<table style="border-collapse:collapse">${x.facts
            .map(([k, v]) => `<tr><th style="text-align:left;padding:2px 12px 2px 0;color:#52606d">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
            .join('')}</table>`
        : '') +
      `</body></html>`;
  return { subject, text: textLines.join('\n'), html };
}

/**
 * The webhook body, version 1:
 * `{ kind: "event" | "problem" | "report" | "test" | "approval", version: 1, id, sent_at, ... }` with
 * `event`, `problem` + `action`, `report`, `message` + `requested_by` or `approval`.
 */
export function webhookBody(c: NotificationContent, meta: { id: string; sentAt: string }, o: FormatOptions): Record<string, unknown> {
  const head = { version: WEBHOOK_BODY_VERSION, id: meta.id, sent_at: meta.sentAt };
  switch (c.kind) {
    case 'event':
      return { kind: 'event', ...head, event: c.event };
    case 'problem':
      return { kind: 'problem', ...head, action: c.action, problem: c.problem, ...(c.action === 'escalated' ? { step: c.step } : {}) };
    case 'report':
      return { kind: 'report', ...head, report: { id: c.report_id, day: c.day, ...c.summary } };
    case 'test':
      return { kind: 'test', ...head, message: phrases(o.lang).test_body(o.channel, c.requested_by), requested_by: c.requested_by };
    case 'login_locked':
      return {
        kind: 'event',
        ...head,
        event: { type: 'sac.auth.login_locked', severity: 'high', username: c.username, ip: c.ip, locked_until: c.locked_until, attempts: c.attempts },
      };
    case 'approval':
      return { kind: 'approval', ...head, approval: c.approval };
  }
}

/** What a notification is about: the id (or user name) its push tag and tap target name. */
function refOf(c: NotificationContent): string | null {
  switch (c.kind) {
    case 'event':
      return c.event.event_id;
    case 'problem':
      return c.problem.id;
    case 'report':
      return c.report_id;
    case 'login_locked':
      return c.username;
    case 'approval':
      return c.approval.id;
    case 'test':
      return null;
  }
}

/** The push payload (JSON text the service worker shows): title, body, tag, data. */
export function pushMessage(c: NotificationContent, o: FormatOptions): string {
  const x = outline(c, o);
  const p = phrases(o.lang);
  const ref = refOf(c);
  // A problem's push names its top three addresses and users: a lock screen shows a few lines.
  const short = c.kind === 'problem' ? topRows(c.problem, p, 3).map(([k, v]) => `${k}: ${v}`) : c.kind === 'approval' ? x.facts.map(([k, v]) => `${k}: ${v}`) : [];
  const body = [x.title, x.body, ...short].filter(Boolean).join('\n').slice(0, 1000);
  // The tap target is the path of the thing in SAC's API (`/problems/{id}`, `/events/{id}`,
  // `/approvals/{id}`); the service worker opens the console's screen for it. An open problem can be
  // acknowledged, and an approval request approved or denied, from the notification where the
  // platform shows actions: the console then asks to confirm and acts with the user's own session.
  const url = c.kind === 'problem' ? `/problems/${c.problem.id}` : c.kind === 'event' ? `/events/${c.event.event_id}` : c.kind === 'approval' ? `/approvals/${c.approval.id}` : null;
  const actions =
    c.kind === 'problem' && c.action === 'opened'
      ? [{ action: 'acknowledge', title: p.acknowledge }]
      : c.kind === 'approval'
        ? [
            { action: 'approve', title: p.approve },
            { action: 'deny', title: p.deny },
          ]
        : [];
  return JSON.stringify({ title: `${x.mark} ${x.headline}`, body, tag: `${c.kind}:${ref ?? 'test'}`, data: { kind: c.kind, ref, url }, actions });
}
