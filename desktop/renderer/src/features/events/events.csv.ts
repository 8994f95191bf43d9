import { csvRow } from '../../utils/format';
import type { EventRow, EventsPage } from './events.api';

export const CSV_COLUMNS = ['occurred_at', 'received_at', 'severity', 'hostname', 'type', 'title', 'summary', 'actor_user', 'agent_product', 'agent_version', 'rdg_flap', 'event_id'] as const;
/** Export stops here: a spreadsheet is not the tool for more. */
export const CSV_MAX_ROWS = 100_000;
const PAGE = 500;

/**
 * Every event of the current filter as CSV, fetched page by page (newest first) with the
 * progress reported after each page. Stops at CSV_MAX_ROWS.
 */
export async function eventsCsv(fetchPage: (cursor: string | undefined, limit: number) => Promise<EventsPage>, onProgress: (rows: number) => void): Promise<{ csv: string; rows: number }> {
  const lines: string[] = [CSV_COLUMNS.join(',')];
  let cursor: string | undefined;
  let rows = 0;
  do {
    const page = await fetchPage(cursor, PAGE);
    for (const e of page.items) lines.push(csvRow(CSV_COLUMNS.map((c) => e[c as keyof EventRow])));
    rows += page.items.length;
    onProgress(rows);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && rows < CSV_MAX_ROWS);
  return { csv: `\ufeff${lines.join('\r\n')}\r\n`, rows };
}
