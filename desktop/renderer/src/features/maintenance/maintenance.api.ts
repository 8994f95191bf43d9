import type { MaintenanceWindowInput, MaintenanceWindowView } from '../../../../../shared/src/maintenance.schema';
import { call, trpc } from '../../api/trpc';
import { localValue } from '../../utils/format';

export type MaintenanceWindow = MaintenanceWindowView;

export const maintenanceApi = {
  list: () => call(() => trpc.maintenance.list.query()),
  canManage: () => call(() => trpc.maintenance.canManage.query()),
  active: (host?: string) => call(() => trpc.maintenance.active.query(host ? { host } : {})),
  create: (input: MaintenanceWindowInput) => call(() => trpc.maintenance.create.mutate(input)),
  update: (id: string, input: MaintenanceWindowInput) => call(() => trpc.maintenance.update.mutate({ id, ...input })),
  end: (id: string) => call(() => trpc.maintenance.end.mutate({ id })),
};

/** The editor's form, in the units people type (local date-times, lines of text). */
export interface WindowForm {
  hosts: string;
  /** Host group ids. */
  groups: string[];
  types: string;
  rules: string;
  starts: string;
  ends: string;
  recurring: boolean;
  weekdays: number[];
  startTime: string;
  duration: number;
  timezone: string;
  reason: string;
}

/** The names of a list field: one a line (or comma-separated), trimmed, blanks left out. */
export const lines = (text: string) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
const toLocalInput = (ms: number) => localValue(Math.floor(ms / 60_000) * 60_000, true);

export function emptyForm(nowMs: number): WindowForm {
  return {
    hosts: '',
    groups: [],
    types: '',
    rules: '',
    starts: toLocalInput(nowMs),
    ends: toLocalInput(nowMs + 2 * 3600_000),
    recurring: false,
    weekdays: [6],
    startTime: '22:00',
    duration: 120,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    reason: '',
  };
}

export function formOf(w: MaintenanceWindow): WindowForm {
  return {
    hosts: w.hosts.join('\n'),
    groups: w.group_ids,
    types: w.type_prefixes.join('\n'),
    rules: w.rules.join('\n'),
    starts: toLocalInput(Date.parse(w.starts_at)),
    ends: w.ends_at ? toLocalInput(Date.parse(w.ends_at)) : '',
    recurring: w.recurrence !== null,
    weekdays: w.recurrence?.weekdays ?? [6],
    startTime: w.recurrence?.start ?? '22:00',
    duration: w.recurrence?.duration_minutes ?? 120,
    timezone: w.recurrence?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    reason: w.reason,
  };
}

/** What the form's start and end lack before it can be sent (i18n keys), by field. */
export function timingProblems(f: WindowForm): { starts?: string; ends?: string } {
  if (!f.starts) return { starts: 'maintenance.startsRequired' };
  if (!f.ends) return f.recurring ? {} : { ends: 'maintenance.endsRequired' };
  return f.ends <= f.starts ? { ends: 'picker.endsBeforeStarts' } : {};
}

/** The API input of a form. */
export function inputOf(f: WindowForm): MaintenanceWindowInput {
  return {
    hosts: lines(f.hosts),
    group_ids: f.groups,
    type_prefixes: lines(f.types),
    rules: lines(f.rules),
    starts_at: new Date(f.starts).toISOString(),
    ends_at: f.ends ? new Date(f.ends).toISOString() : null,
    recurrence: f.recurring ? { weekdays: [...f.weekdays].sort(), start: f.startTime, duration_minutes: f.duration, timezone: f.timezone } : null,
    reason: f.reason.trim(),
  };
}
