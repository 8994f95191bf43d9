import { APPROVAL_ACTIONS, type ApprovalAction, type ApprovalGroupPolicy } from '../../../../../shared/src/approvals.schema';
import { SEVERITIES, type Severity } from '../../../../../shared/src/event.schema';
import { SETTINGS_SCHEMAS, type TypeProblemChoice } from '../../../../../shared/src/settings.schema';
import { mostSpecificPattern } from '../../../../../shared/src/type-patterns';

/** One git repository row as the form edits it; the token is write-only like every secret. */
export interface RepoRow {
  product: string;
  url: string;
  branch: string;
  version_from: 'tag' | 'file';
  version_file: string;
  /** A new token typed in; empty keeps the stored one. */
  token: string;
  /** Whether a token is stored for this row (as read). */
  tokenSet: boolean;
  clearToken: boolean;
  /** The row's product and URL as read; null for a row added in the form. */
  saved: { product: string; url: string } | null;
}

type RepoValue = {
  product: string;
  url: string;
  branch: string | null;
  token: unknown;
  version_from: 'tag' | 'file';
  version_file: string | null;
};

export function reposToRows(value: unknown): RepoRow[] {
  return (Array.isArray(value) ? (value as RepoValue[]) : []).map((r) => ({
    product: r.product,
    url: r.url,
    branch: r.branch ?? '',
    version_from: r.version_from,
    version_file: r.version_file ?? '',
    token: '',
    tokenSet: (r.token as { set?: boolean } | null)?.set === true,
    clearToken: false,
    saved: { product: r.product, url: r.url },
  }));
}

export const emptyRepoRow = (): RepoRow => ({ product: '', url: '', branch: '', version_from: 'tag', version_file: '', token: '', tokenSet: false, clearToken: false, saved: null });

/** A problem of one row's field, for the form to show beside it. */
export interface RowProblem {
  row: number;
  field: string;
  message: string;
}

/**
 * The `repos` value to send, or the problems that stop it. A stored token is kept (`{ set: true }`)
 * only for a row still at its place with the same product and URL: the daemon keeps a marker by
 * position, so after a removal or a new URL the token must be typed again rather than follow
 * the row to another repository.
 */
export function rowsToRepos(rows: readonly RepoRow[], original: readonly RepoRow[]): { value: RepoValue[]; problems: RowProblem[] } {
  const problems: RowProblem[] = [];
  const schema = SETTINGS_SCHEMAS.git_repos.shape.repos;
  const value = rows.map((r, i): RepoValue => {
    let token: unknown = null;
    if (r.token.trim()) token = r.token.trim();
    else if (r.tokenSet && !r.clearToken) {
      const before = original[i]?.saved;
      const samePlace = r.saved !== null && before !== undefined && before !== null && before.product === r.saved.product && before.url === r.saved.url;
      if (samePlace && r.url.trim() === r.saved!.url && r.product.trim() === r.saved!.product) token = { set: true };
      else problems.push({ row: i, field: 'token', message: 'token' });
    }
    return {
      product: r.product.trim(),
      url: r.url.trim(),
      branch: r.branch.trim() || null,
      token,
      version_from: r.version_from,
      version_file: r.version_from === 'file' ? r.version_file.trim() || null : null,
    };
  });
  const seen = new Set<string>();
  value.forEach((v, i) => {
    if (seen.has(v.product)) problems.push({ row: i, field: 'product', message: 'duplicate' });
    seen.add(v.product);
  });
  // Everything but kept tokens through the shared schema, so the form says what the daemon would.
  const check = schema.safeParse(value.map((v) => ({ ...v, token: typeof v.token === 'string' ? v.token : null })));
  if (!check.success) {
    for (const issue of check.error.issues) {
      const [row, field] = issue.path as [number, string];
      if (typeof row === 'number') problems.push({ row, field: String(field ?? 'product'), message: issue.message });
    }
  }
  return { value, problems };
}

/** One severity's escalation policy as the form edits it. */
export interface StepForm {
  on: boolean;
  interval_minutes: string;
  max_repeats: string;
  final_channels: string[];
  final_emails: string;
  /** Host group ids; none: every host. */
  group_ids: string[];
}

type StepValue = { interval_minutes: number; max_repeats: number; final_channels: string[]; final_emails: string[]; group_ids?: string[] };

export function policiesToForm(value: unknown): Record<Severity, StepForm> {
  const v = (value ?? {}) as Partial<Record<Severity, StepValue>>;
  return Object.fromEntries(
    SEVERITIES.map((s) => {
      const p = v[s];
      return [
        s,
        p
          ? {
              on: true,
              interval_minutes: String(p.interval_minutes),
              max_repeats: String(p.max_repeats),
              final_channels: [...p.final_channels],
              final_emails: p.final_emails.join('\n'),
              group_ids: [...(p.group_ids ?? [])],
            }
          : { on: false, interval_minutes: '30', max_repeats: '3', final_channels: [], final_emails: '', group_ids: [] },
      ];
    }),
  ) as Record<Severity, StepForm>;
}

/** The `policies` value: only severities turned on; problems keyed `severity.field`. */
export function formToPolicies(form: Record<Severity, StepForm>): { value: Partial<Record<Severity, StepValue>>; problems: Record<string, string> } {
  const value: Partial<Record<Severity, StepValue>> = {};
  for (const s of SEVERITIES) {
    const f = form[s];
    if (!f.on) continue;
    value[s] = {
      interval_minutes: Number(f.interval_minutes),
      max_repeats: Number(f.max_repeats),
      final_channels: f.final_channels,
      final_emails: f.final_emails.split('\n').map((l) => l.trim()).filter(Boolean),
      group_ids: f.group_ids,
    };
  }
  const problems: Record<string, string> = {};
  const check = SETTINGS_SCHEMAS.escalation.shape.policies.safeParse(value);
  if (!check.success) for (const issue of check.error.issues) problems[issue.path.slice(0, 2).join('.')] ??= issue.message;
  return { value, problems };
}

/** One per-type problem choice as the form edits it. */
export interface TypeRow {
  pattern: string;
  choice: TypeProblemChoice;
}

export function typeProblemsToRows(value: unknown): TypeRow[] {
  return Object.entries((value ?? {}) as Record<string, TypeProblemChoice>).map(([pattern, choice]) => ({ pattern, choice }));
}

/** The `type_problems` value, or the problems that stop it (checked with the shared schema, as the daemon does). */
export function rowsToTypeProblems(rows: readonly TypeRow[]): { value: Record<string, TypeProblemChoice>; problems: RowProblem[] } {
  const problems: RowProblem[] = [];
  const value: Record<string, TypeProblemChoice> = {};
  rows.forEach((r, i) => {
    const pattern = r.pattern.trim();
    if (pattern in value) problems.push({ row: i, field: 'pattern', message: 'duplicate' });
    value[pattern] = r.choice;
  });
  const check = SETTINGS_SCHEMAS.correlation.shape.type_problems.safeParse(value);
  if (!check.success) {
    for (const issue of check.error.issues) {
      const row = rows.findIndex((r) => r.pattern.trim() === issue.path[0]);
      problems.push({ row: Math.max(row, 0), field: 'pattern', message: issue.message });
    }
  }
  return { value, problems };
}

/** Problems one type (and rule) opened in the last week, as `problems.openedByType` lists them. */
export interface OpenedCount {
  type: string;
  rule: string;
  opened: number;
}

/**
 * The week's problems beside the rows: per row, what the types it decides for opened by severity;
 * the types no row decides for (they open), most first; and the host activity problems opened.
 */
export function openedPerRow(rows: readonly TypeRow[], counts: readonly OpenedCount[]): { perRow: number[]; unlisted: OpenedCount[]; hostActivity: number } {
  const byPattern = Object.fromEntries(rows.map((r, i) => [r.pattern.trim(), i]));
  const perRow = rows.map(() => 0);
  const unlisted: OpenedCount[] = [];
  let hostActivity = 0;
  for (const c of counts) {
    if (c.rule === 'host_activity') hostActivity += c.opened;
    if (c.rule !== 'severity') continue;
    const pattern = mostSpecificPattern(c.type, byPattern);
    if (pattern === undefined) unlisted.push(c);
    else perRow[byPattern[pattern]] += c.opened;
  }
  return { perRow, unlisted, hostActivity };
}

/** One per-group entry of the approval policy as the form edits it (`group` empty until one is chosen). */
export interface GroupPolicyRow {
  group: string;
  actions: ApprovalAction[];
}

export function groupPoliciesToRows(value: unknown): GroupPolicyRow[] {
  return ((value ?? []) as ApprovalGroupPolicy[]).map((entry) => ({ group: entry.group, actions: [...entry.actions] }));
}

/** The `by_group` value, or the problems that stop it: a row without a group or an action, a group named twice. */
export function rowsToGroupPolicies(rows: readonly GroupPolicyRow[]): { value: ApprovalGroupPolicy[]; problems: RowProblem[] } {
  const problems: RowProblem[] = [];
  const seen = new Set<string>();
  rows.forEach((r, i) => {
    if (!r.group) problems.push({ row: i, field: 'group', message: 'group' });
    else if (seen.has(r.group)) problems.push({ row: i, field: 'group', message: 'duplicate' });
    seen.add(r.group);
    if (r.actions.length === 0) problems.push({ row: i, field: 'actions', message: 'actions' });
  });
  return { value: rows.map((r) => ({ group: r.group, actions: APPROVAL_ACTIONS.filter((a) => r.actions.includes(a)) })), problems };
}
