import type { ProblemSortKey } from '../problems.types.js';

/**
 * Migration 32: a problem's assignee, and one index per sortable column of the problem list
 * (sort column, id) so that every page of a sorted list is an index range, not a sort of all problems.
 */
export const PROBLEM_ASSIGNEE_SQLITE_MIGRATION = {
  id: 32,
  name: 'problems: assignee, indexes of the sortable list columns',
  sql: `
    ALTER TABLE problems ADD COLUMN assignee_id TEXT;
    ALTER TABLE problems ADD COLUMN assignee TEXT;
    ALTER TABLE problems ADD COLUMN assigned_ms INTEGER;
    CREATE INDEX problems_by_assignee ON problems (assignee_id, last_seen_ms, id);
    CREATE INDEX problems_by_first_seen ON problems (first_seen_ms, id);
    CREATE INDEX problems_by_severity ON problems (severity_rank, id);
    CREATE INDEX problems_by_count ON problems (count, id);
    CREATE INDEX problems_by_hostname ON problems (hostname, id);
  `,
};

/** The column behind each sort key of the problem list. */
export const PROBLEM_SORT_COLUMN: Record<ProblemSortKey, string> = {
  last_seen: 'last_seen_ms',
  first_seen: 'first_seen_ms',
  severity: 'severity_rank',
  count: 'count',
  hostname: 'hostname',
};
