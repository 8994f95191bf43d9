/**
 * Numbered schema migrations of the embedded store. Append only: a released migration never changes.
 * Each runs in one transaction together with its record in `schema_migrations`.
 */
export interface SqliteMigration {
  id: number;
  name: string;
  sql: string;
}
