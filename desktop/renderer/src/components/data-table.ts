/** One column of a DataTable. */
export interface Column {
  /** Names the cell slot (`#cell-<key>`) and the header slot (`#head-<key>`). */
  key: string;
  /** Header text; also the label a cell shows on a phone, where rows become cards. */
  label?: string;
  /** The server's sort key: the header becomes a sort button (`data-testid="sort-<sortKey>"`). */
  sortKey?: string;
  /** Tooltip on the header. */
  title?: string;
  /** Right-aligned number column. */
  num?: boolean;
  nowrap?: boolean;
  /** Hidden when the detail pane is open or the window is narrow. */
  secondary?: boolean;
  /** Clicks in this cell do not open the row (checkboxes, links, buttons). */
  stopClick?: boolean;
  /** Extra classes for the cells (`mono`, `ellipsis`, …). */
  cellClass?: string;
  testid?: string;
}

/** The current sort of a server-sorted list. */
export interface TableSort {
  key: string;
  desc: boolean;
}

/** `aria-sort` of a header: the sorted column says which way, the others "none". */
export function ariaSort(sort: TableSort | null | undefined, key: string): 'ascending' | 'descending' | 'none' {
  return sort?.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none';
}

/** The rows of one page (`size` 0 shows them all) and how many pages there are. */
export function pageOf<T>(rows: readonly T[], page: number, size: number): { rows: T[]; pages: number; page: number } {
  if (size <= 0) return { rows: [...rows], pages: 1, page: 0 };
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const current = Math.min(Math.max(0, page), pages - 1);
  return { rows: rows.slice(current * size, (current + 1) * size), pages, page: current };
}
