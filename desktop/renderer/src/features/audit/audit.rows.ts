import type { AuditRow } from './audit.api';

/** An audit row as shown: consecutive sign-ins of one user from one address fold into one row. */
export interface AuditLine {
  row: AuditRow;
  /** How many entries the line stands for (1 unless sign-ins were folded). */
  count: number;
  /** The oldest folded entry's time, when count > 1. */
  firstAt: string | null;
}

const FOLDED = new Set(['auth.login_succeeded']);

/** Folds runs of the same sign-in (action, user, address, outcome) in a newest-first list. */
export function groupAuditRows(rows: readonly AuditRow[]): AuditLine[] {
  const lines: AuditLine[] = [];
  for (const row of rows) {
    const last = lines.at(-1);
    if (
      last &&
      FOLDED.has(row.action) &&
      last.row.action === row.action &&
      last.row.actor_username === row.actor_username &&
      last.row.ip === row.ip &&
      last.row.outcome === row.outcome
    ) {
      last.count += 1;
      last.firstAt = row.at;
    } else lines.push({ row, count: 1, firstAt: null });
  }
  return lines;
}

/** `kind:id` of an audit target. */
export function splitTarget(target: string | null): { kind: string; id: string } | null {
  if (!target) return null;
  const i = target.indexOf(':');
  return i < 0 ? { kind: target, id: '' } : { kind: target.slice(0, i), id: target.slice(i + 1) };
}

/** Details as short "key: value" pairs (lists joined), instead of one line of JSON. */
export function detailPairs(details: Record<string, unknown>): [string, string][] {
  return Object.entries(details).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}
