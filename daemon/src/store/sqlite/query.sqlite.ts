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

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
