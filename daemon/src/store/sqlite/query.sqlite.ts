import type Database from 'better-sqlite3';

/** SQL fragments shared by the SQLite repositories. */

/** `type = p OR type LIKE 'p.%'` for each pattern; params appended to `params`. */
export function typePatternSql(column: string, patterns: string[], params: unknown[]): string {
  return patterns
    .map((p) => {
      const base = p.replace(/\.\*$|\.$/, '');
      params.push(base, `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`);
      return `(${column} = ? OR ${column} LIKE ? ESCAPE '\\')`;
    })
    .join(' OR ');
}

export function hiddenSql(column: string, hidden: string[], params: unknown[]): string {
  return hidden.length === 0 ? '' : `NOT (${typePatternSql(column, hidden, params)})`;
}

/** A LIKE pattern (with `ESCAPE '\\'`) for text anywhere in a lower-cased value. */
export function containsLike(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Rows per multi-row statement: well under SQLite's limit of bound parameters. */
const CHUNK_ROWS = 200;

/**
 * Multi-row statements for a list of rows: `sql` gets the `(?, …), (?, …)` list of one chunk.
 * Returns a splitter of rows into (statement, chunk) pairs; statements are prepared once per
 * chunk length.
 */
export function chunkedStatements(
  db: Database.Database,
  sql: (rows: string) => string,
  columns: number,
): <T>(rows: readonly T[]) => [Database.Statement<unknown[]>, T[]][] {
  const byLength = new Map<number, Database.Statement<unknown[]>>();
  const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  const statement = (n: number) => {
    let stmt = byLength.get(n);
    if (!stmt) byLength.set(n, (stmt = db.prepare<unknown[]>(sql(Array.from({ length: n }, () => row).join(', ')))));
    return stmt;
  };
  return (rows) => {
    const out: [Database.Statement<unknown[]>, (typeof rows)[number][]][] = [];
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
      const chunk = rows.slice(i, i + CHUNK_ROWS);
      out.push([statement(chunk.length), chunk]);
    }
    return out;
  };
}
