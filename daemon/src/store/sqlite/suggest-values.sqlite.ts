import type Database from 'better-sqlite3';
import type { CatalogueField, CatalogueValue, SuggestValuesRepo } from '../suggest-values.types.js';

const IP_PATHS = ['$.details.ip_address', '$.details.source_ip', '$.details.external_ip'];

export const SUGGEST_VALUES_SQLITE_MIGRATION = {
  id: 76,
  // Filled from the events already stored. `lower()` folds ASCII only; values recorded at ingest
  // are folded by JavaScript (`toLowerCase`), so a non-ASCII value stored before this migration
  // is found by its exact case until it is seen again.
  name: 'value catalogue of users, addresses and types for suggestions',
  sql: `
    CREATE TABLE suggest_values (
      field TEXT NOT NULL,
      value TEXT NOT NULL,
      folded TEXT NOT NULL,
      PRIMARY KEY (field, value)
    ) WITHOUT ROWID;
    CREATE INDEX suggest_values_by_folded ON suggest_values (field, folded);
    INSERT OR IGNORE INTO suggest_values (field, value, folded)
      SELECT DISTINCT 'user', actor_user, lower(actor_user) FROM events WHERE actor_user IS NOT NULL AND length(actor_user) <= 256;
    INSERT OR IGNORE INTO suggest_values (field, value, folded)
      SELECT DISTINCT 'type', type, lower(type) FROM events;
    ${IP_PATHS.map(
      (p) => `INSERT OR IGNORE INTO suggest_values (field, value, folded)
      SELECT DISTINCT 'ip', json_extract(doc, '${p}'), lower(json_extract(doc, '${p}')) FROM events
      WHERE json_type(doc, '${p}') = 'text' AND length(json_extract(doc, '${p}')) <= 64;`,
    ).join('\n    ')}
  `,
};

export function sqliteSuggestValues(db: Database.Database): SuggestValuesRepo {
  const insert = db.prepare<[string, string, string]>('INSERT OR IGNORE INTO suggest_values (field, value, folded) VALUES (?, ?, ?)');
  const recordTx = db.transaction((values: CatalogueValue[]) => {
    for (const v of values) insert.run(v.field, v.value, v.value.toLowerCase());
  });
  const matching = db.prepare<[CatalogueField, string, string, number], { value: string }>(
    `SELECT value FROM suggest_values WHERE field = ? AND instr(folded, ?) > 0
     ORDER BY instr(folded, ?) <> 1, folded, value LIMIT ?`,
  );
  return {
    async record(values) {
      if (values.length > 0) recordTx(values);
    },
    async match(field, text, limit) {
      return matching.all(field, text, text, limit).map((r) => r.value);
    },
  };
}
