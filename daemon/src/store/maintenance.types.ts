import type { WeeklyRecurrence } from '../../../shared/src/index.js';

/** A maintenance window as stored. Hostnames are lower-cased. */
export interface MaintenanceWindowRecord {
  id: string;
  hosts: string[];
  /** Host groups (ids) whose members the window covers besides `hosts`, membership as it is when a notification comes. */
  group_ids: string[];
  type_prefixes: string[];
  rules: string[];
  starts_ms: number;
  /** End of a one-off window, or of a recurrence (null = recurs forever). */
  ends_ms: number | null;
  recurrence: WeeklyRecurrence | null;
  reason: string;
  created_by: string | null;
  created_ms: number;
  updated_ms: number;
  /** Set when someone ended the window before its end (`ends_ms` is then that instant). */
  ended_early_ms: number | null;
}

export interface MaintenanceRepo {
  insert(record: MaintenanceWindowRecord): Promise<void>;
  /** Replaces the stored window with the same id; false when there is none. */
  replace(record: MaintenanceWindowRecord): Promise<boolean>;
  byId(id: string): Promise<MaintenanceWindowRecord | null>;
  /** Every window, newest start first. */
  list(): Promise<MaintenanceWindowRecord[]>;
  /** Windows whose end is unset or after `nowMs` (the only ones that can matter now or later). */
  current(nowMs: number): Promise<MaintenanceWindowRecord[]>;
}
