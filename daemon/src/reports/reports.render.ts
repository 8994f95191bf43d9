import { type Language, localParts, type ReportSummary } from '../../../shared/src/index.js';
import { escapeHtml, phrases } from '../notify/index.js';

/**
 * The daily report as one self-contained HTML document: inline styles and tables only, so the
 * same text works as an e-mail body, in the console and opened directly in a browser.
 */
export function renderReportHtml(summary: ReportSummary, o: { day: string; lang: Language; timeZone: string; generatedMs: number; group?: string }): string {
  const p = phrases(o.lang);
  const title = o.group === undefined ? p.report_title(o.day) : `${p.report_title(o.day)} · ${o.group}`;
  const t = (iso: string) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? iso : localParts(ms, o.timeZone).time;
  };
  const e = escapeHtml;
  const cell = 'padding:8px 10px;border-bottom:1px solid #e4e7eb;vertical-align:top;font-size:13px';
  const head = 'padding:8px 10px;border-bottom:2px solid #cbd2d9;text-align:left;font-size:12px;color:#52606d;text-transform:uppercase;letter-spacing:.03em';
  const num = `${cell};text-align:right;font-variant-numeric:tabular-nums`;
  // The Windows agent decorates user names with an emoji ("👤 ivanov"); mail clients and consoles
  // without an emoji font draw it as a box, and the name says it all.
  const plain = (items: string[]) => items.map((i) => i.replace(/^\p{Extended_Pictographic}\uFE0F?\s*/u, ''));
  const list = (items: string[]) => (items.length ? items.map((i) => e(i)).join('<br>') : '<span style="color:#9aa5b1">—</span>');
  const card = (label: string, value: number, color: string) =>
    `<td style="padding:12px 16px;background:#f5f7fa;border-radius:6px;border-left:4px solid ${color}">` +
    `<div style="font-size:12px;color:#52606d">${e(label)}</div><div style="font-size:24px;font-weight:bold;color:#1f2933">${value}</div></td>`;

  const hostRows = summary.hosts
    .map(
      (h) =>
        `<tr><td style="${cell};font-weight:bold;white-space:nowrap">${e(h.hostname)}</td><td style="${cell}">${h.platform.toUpperCase()}</td>` +
        `<td style="${num};color:#2f8132">${h.successful_logins}</td><td style="${num};color:${h.failed_logins > 0 ? '#c62828' : '#1f2933'}">${h.failed_logins}</td>` +
        `<td style="${num}">${h.active_bans}</td><td style="${cell}">${list(h.top_failed_ips)}</td><td style="${cell}">${list(plain(h.active_users))}</td>` +
        `<td style="${cell};color:#52606d;white-space:nowrap">${e(h.reported_at)}</td></tr>`,
    )
    .join('');
  const ipRows = summary.top_failed_ips
    .map((r) => `<tr><td style="${cell};font-family:monospace">${e(r.ip)}</td><td style="${num}">${r.count}</td></tr>`)
    .join('');

  return `<!doctype html>
<html lang="${o.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(title)}</title></head>
<body style="margin:0;padding:24px;background:#ffffff;font-family:Segoe UI,Roboto,Arial,sans-serif,Segoe UI Emoji,Noto Color Emoji;color:#1f2933">
<div style="max-width:1100px;margin:0 auto">
<h1 style="font-size:22px;margin:0 0 4px">${e(title)}</h1>
<p style="margin:0 0 20px;color:#52606d;font-size:13px">${e(p.report_period)}: ${e(t(summary.period_from))} — ${e(t(summary.period_to))} (${e(o.timeZone)})</p>
<h2 style="font-size:16px;margin:0 0 8px">${e(p.report_totals)}</h2>
<table role="presentation" style="border-collapse:separate;border-spacing:8px 0;margin:0 -8px 24px"><tr>
${card(p.report_hosts, summary.totals.hosts, '#3f51b5')}${card(p.report_success, summary.totals.successful_logins, '#2f8132')}${card(p.report_failed, summary.totals.failed_logins, '#c62828')}${card(p.report_bans, summary.totals.active_bans, '#ef6c00')}
</tr></table>
${
  summary.hosts.length === 0
    ? `<p style="padding:16px;background:#fff8e1;border-radius:6px">${e(p.report_no_data)}</p>`
    : `<div style="overflow-x:auto;margin-bottom:24px"><table style="border-collapse:collapse;width:100%"><thead><tr>
<th style="${head}">${e(p.host)}</th><th style="${head}">${e(p.report_platform)}</th><th style="${head};text-align:right">${e(p.report_success)}</th>
<th style="${head};text-align:right">${e(p.report_failed)}</th><th style="${head};text-align:right">${e(p.report_bans)}</th>
<th style="${head}">${e(p.report_top_ips)}</th><th style="${head}">${e(p.report_users)}</th><th style="${head}">${e(p.report_reported_at)}</th>
</tr></thead><tbody>${hostRows}</tbody></table></div>`
}
${
  ipRows
    ? `<h2 style="font-size:16px;margin:0 0 8px">${e(p.report_top_ips)}</h2>
<table style="border-collapse:collapse;min-width:320px;margin-bottom:24px"><thead><tr><th style="${head}">${e(p.ip)}</th><th style="${head};text-align:right">${e(p.report_failed)}</th></tr></thead><tbody>${ipRows}</tbody></table>`
    : ''
}
<p style="color:#9aa5b1;font-size:12px;margin-top:24px">SAC · ${e(localParts(o.generatedMs, o.timeZone).time)} (${e(o.timeZone)})</p>
</div></body></html>
`;
}
