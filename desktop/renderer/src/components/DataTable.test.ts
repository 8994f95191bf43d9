// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import { h } from 'vue';
import { ApiError } from '../api/http';
import { createAppI18n } from '../i18n';
import DataTable from './DataTable.vue';
import type { Column } from './data-table';

interface Row {
  id: string;
  name: string;
  count: number;
}
const rows: Row[] = [1, 2, 3, 4, 5].map((n) => ({ id: `r${n}`, name: `host-${n}`, count: n * 10 }));
const columns: Column[] = [
  { key: 'pick', stopClick: true },
  { key: 'name', label: 'Name', sortKey: 'name' },
  { key: 'count', label: 'Count', num: true, sortKey: 'count' },
];

function mountTable(props: Record<string, unknown> = {}) {
  return mount(DataTable, {
    props: { columns, rows, ...props },
    slots: { 'cell-pick': ({ row }: { row: unknown }) => h('input', { type: 'checkbox', 'aria-label': (row as Row).name }) },
    global: { plugins: [createAppI18n('en')] },
  });
}
const bodyRows = (w: ReturnType<typeof mountTable>) => w.findAll('tbody tr');

describe('DataTable', () => {
  it('shows the columns, each cell under its label (the phone layout reads it), and the rows’ attributes', () => {
    const w = mountTable({ rowKey: (r: Row) => r.name, rowAttrs: (r: Row) => ({ 'data-host': r.name }) });
    expect(w.findAll('th').map((th) => th.text())).toEqual(['', 'Name', 'Count']);
    expect(bodyRows(w)).toHaveLength(5);
    const first = w.find('tbody tr[data-host="host-1"]');
    expect(first.findAll('td').map((td) => [td.attributes('data-label') ?? null, td.text()])).toEqual([
      [null, ''],
      ['Name', 'host-1'],
      ['Count', '10'],
    ]);
    expect(first.findAll('td')[2].classes()).toContain('num');
  });

  it('asks for the server’s sort from a header button and marks the sorted column', async () => {
    const w = mountTable({ sort: { key: 'count', desc: true } });
    expect(w.findAll('th').map((th) => th.attributes('aria-sort') ?? null)).toEqual([null, 'none', 'descending']);
    await w.find('[data-testid="sort-name"]').trigger('click');
    expect(w.emitted('sort')).toEqual([['name']]);
  });

  it('pages a long list and says which rows are shown', async () => {
    const w = mountTable({ pageSize: 2 });
    expect(bodyRows(w).map((r) => r.findAll('td')[1].text())).toEqual(['host-1', 'host-2']);
    expect(w.find('[data-testid="page-range"]').text()).toBe('1–2 of 5');
    expect(w.find('[data-testid="page-prev"]').attributes('disabled')).toBeDefined();
    await w.find('[data-testid="page-next"]').trigger('click');
    await w.find('[data-testid="page-next"]').trigger('click');
    expect(bodyRows(w).map((r) => r.findAll('td')[1].text())).toEqual(['host-5']);
    expect(w.find('[data-testid="page-next"]').attributes('disabled')).toBeDefined();
    // A new list starts again on the first page.
    await w.setProps({ rows: rows.slice(0, 4) });
    expect(w.find('[data-testid="page-range"]').text()).toBe('1–2 of 4');
  });

  it('shows no pager when the list fits on a page or the server pages it', () => {
    expect(mountTable().find('.pager').exists()).toBe(false);
    expect(mountTable({ pageSize: 0, rows: [...rows, ...rows.map((r) => ({ ...r, id: `${r.id}b` }))] }).find('.pager').exists()).toBe(false);
  });

  it('says when there is nothing, and offers a retry when loading failed', async () => {
    expect(mountTable({ rows: [], emptyText: 'Nothing matches these filters.' }).text()).toContain('Nothing matches these filters.');
    let loads = 0;
    const w = mountTable({ rows: null, state: { loading: false, error: new ApiError('database is locked', 500, 'store/busy'), load: () => (loads += 1) } });
    expect(w.find('[role="alert"]').text()).toContain('database is locked');
    expect(w.find('table').exists()).toBe(false);
    await w.find('[role="alert"] button').trigger('click');
    expect(loads).toBe(1);
    expect(mountTable({ rows: [], state: { loading: true, error: null } }).find('[aria-busy="true"]').exists()).toBe(true);
  });

  it('opens a row with a click, Enter or Space, but not from a control in a stop-click cell', async () => {
    const w = mountTable({ clickable: true, selectedKey: 'r2' });
    const [first, second] = bodyRows(w);
    expect(first.attributes('tabindex')).toBe('0');
    expect(second.classes()).toContain('selected');
    await first.trigger('click');
    await second.trigger('keydown', { key: 'Enter' });
    await second.trigger('keydown', { key: ' ' });
    await first.trigger('keydown', { key: 'a' });
    await first.find('input').trigger('click');
    expect((w.emitted('open') ?? []).map(([r]) => (r as Row).id)).toEqual(['r1', 'r2', 'r2']);
  });

  it('shows the expanded row under its row only, and a row click opens or closes it', async () => {
    const w = mount(DataTable, {
      props: { columns, rows, clickable: true, expandedKey: 'r3' },
      slots: { expanded: ({ row }: { row: unknown }) => h('pre', `output of ${(row as Row).name}`) },
      global: { plugins: [createAppI18n('en')] },
    });
    const all = bodyRows(w);
    expect(all).toHaveLength(6);
    await all[0].trigger('click');
    await all[2].trigger('keydown', { key: 'Enter' });
    expect(w.emitted('update:expandedKey')).toEqual([['r1'], [null]]);
    expect(w.emitted('open')).toBeUndefined();
    expect(all[3].classes()).toContain('expanded-row');
    expect(all[3].text()).toBe('output of host-3');
    expect(all[2].attributes('aria-expanded')).toBe('true');
    expect(all[0].attributes('aria-expanded')).toBe('false');
  });
});
