import { csvRow } from '../../utils/format';

/** A report host row as the daemon sends it (the fields the CSV carries). */
export interface ReportCsvHost {
  hostname: string;
  platform: string;
  successful_logins: number;
  failed_logins: number;
  active_bans: number;
  top_failed_ips: string[];
  active_users: string[];
  reported_at: string;
}

export const REPORT_CSV_COLUMNS = ['hostname', 'platform', 'successful_logins', 'failed_logins', 'active_bans', 'top_failed_ips', 'active_users', 'reported_at'] as const;

/** One line per host of the report, lists joined with "; " — for a spreadsheet. */
export function reportCsv(hosts: readonly ReportCsvHost[]): string {
  const lines = hosts.map((h) => csvRow(REPORT_CSV_COLUMNS.map((c) => (Array.isArray(h[c]) ? (h[c] as string[]).join('; ') : h[c]))));
  return `${[REPORT_CSV_COLUMNS.join(','), ...lines].join('\r\n')}\r\n`;
}
