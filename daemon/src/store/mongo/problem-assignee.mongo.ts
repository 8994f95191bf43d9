import type { Db } from 'mongodb';
import type { ProblemSortKey } from '../problems.types.js';

/**
 * Migration 32: a problem's assignee (documents written before it have no assignee fields and
 * read as unassigned), and one index per sortable column of the problem list (sort column, id).
 */
export const PROBLEM_ASSIGNEE_MONGO_MIGRATION = {
  id: 32,
  name: 'problems: assignee, indexes of the sortable list columns',
  async up(db: Db) {
    await db.collection('problems').createIndexes([
      { key: { assignee_id: 1, last_seen_ms: -1, id: -1 }, name: 'by_assignee' },
      { key: { first_seen_ms: -1, id: -1 }, name: 'by_first_seen' },
      { key: { severity_rank: -1, id: -1 }, name: 'by_severity' },
      { key: { count: -1, id: -1 }, name: 'by_count' },
      { key: { hostname: -1, id: -1 }, name: 'by_hostname' },
    ]);
  },
};

/** The document field behind each sort key of the problem list. */
export const PROBLEM_SORT_FIELD: Record<ProblemSortKey, 'last_seen_ms' | 'first_seen_ms' | 'severity_rank' | 'count' | 'hostname'> = {
  last_seen: 'last_seen_ms',
  first_seen: 'first_seen_ms',
  severity: 'severity_rank',
  count: 'count',
  hostname: 'hostname',
};
