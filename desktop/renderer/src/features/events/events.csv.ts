import { eventIp } from '../../../../../shared/src/agent-values';
import { csvRow } from '../../utils/format';
import type { EventRow, EventsPage } from './events.api';

/** The columns: the table's (its IP and the source's country and AS included) and the rest of a row. */
export const CSV_COLUMNS = [
  'occurred_at', 'received_at', 'severity', 'hostname', 'type', 'title', 'summary', 'actor_user',
  'ip', 'country', 'asn', 'as_org', 'agent_product', 'agent_version', 'rdg_flap', 'event_id',
] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

/** One event's value of a column: the IP as the table shows it, the geography as enriched at ingest. */
function cell(e: EventRow, c: CsvColumn): unknown {
  if (c === 'ip') return eventIp(e.details);
  if (c === 'country') return e.source_geo?.country;
  if (c === 'asn') return e.source_geo?.asn;
  if (c === 'as_org') return e.source_geo?.as_org;
  return e[c];
}
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
    for (const e of page.items) lines.push(csvRow(CSV_COLUMNS.map((c) => cell(e, c))));
    rows += page.items.length;
    onProgress(rows);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && rows < CSV_MAX_ROWS);
  return { csv: `\ufeff${lines.join('\r\n')}\r\n`, rows };
}
