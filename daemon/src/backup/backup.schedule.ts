import { accessSync, constants, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SettingsValue, ValidationIssue } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import type { Fence } from '../jobs/index.js';
import type { BackupResult } from './backup.js';
import type { ThreadBackupInput } from './backup.thread.js';

type BackupSettings = SettingsValue<'backup'>;

/** `sac-backup-20261127T120000Z`: a scheduled backup, named by its time (UTC), so names sort by age. */
const SCHEDULED = /^sac-backup-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(\.partial)?$/;

function scheduledName(ms: number): string {
  return `sac-backup-${new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`;
}

/** The scheduled backups in `dir`, oldest first, with the time of each and whether it is unfinished. */
function scheduledIn(dir: string): { name: string; ms: number; partial: boolean }[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const m = SCHEDULED.exec(name);
      return m ? [{ name, ms: Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]), partial: m[7] !== undefined }] : [];
    })
    .sort((a, b) => a.ms - b.ms);
}

/**
 * What the settings schema cannot check: the store is the embedded one, and the directory exists
 * on this machine and SAC can write it.
 */
export function checkBackupSettings(value: BackupSettings, storeKind: 'sqlite' | 'mongodb'): ValidationIssue[] {
  if (value.enabled && storeKind !== 'sqlite') return [{ path: 'enabled', message: 'scheduled backups are for the embedded store; back MongoDB up with mongodump' }];
  if (value.directory === null) return [];
  if (!path.isAbsolute(value.directory)) return [{ path: 'directory', message: 'must be an absolute path' }];
  try {
    if (!statSync(value.directory).isDirectory()) return [{ path: 'directory', message: 'is not a directory' }];
    accessSync(value.directory, constants.W_OK);
  } catch {
    return [{ path: 'directory', message: 'must be an existing directory the SAC service can write' }];
  }
  return [];
}

/**
 * The scheduled backups of the embedded store (a leader job): when enabled and the newest backup
 * in the directory is `interval_hours` old, a new one (without the master key, which never
 * changes and is kept apart once), then all but the newest `keep` are deleted. A failure is thrown
 * to the job runner, which logs it; the next tick tries again.
 */
export class ScheduledBackups {
  constructor(
    private readonly deps: {
      settings: { get(category: 'backup'): Promise<BackupSettings> };
      dataDir: string;
      clock: Clock;
      logger: Logger;
      backup: (input: ThreadBackupInput) => Promise<BackupResult>;
    },
  ) {}

  /** Answers the backup written, or null when none was due. */
  async runIfDue(fence: Fence): Promise<string | null> {
    const settings = await this.deps.settings.get('backup');
    if (!settings.enabled || settings.directory === null) return null;
    const dir = settings.directory;
    const now = this.deps.clock.now();
    const existing = scheduledIn(dir);
    const newest = existing.filter((b) => !b.partial).at(-1);
    if (newest && now - newest.ms < settings.interval_hours * 3_600_000) return null;
    await fence.check();
    // Left by a backup that died midway (this job runs on one daemon at a time).
    for (const b of existing.filter((e) => e.partial)) rmSync(path.join(dir, b.name), { recursive: true, force: true });
    const result = await this.deps.backup({ dataDir: this.deps.dataDir, target: path.join(dir, scheduledName(now)), nowMs: now });
    this.deps.logger.info({ dir: result.dir, bytes: result.manifest.database.bytes, migration_level: result.manifest.migration_level }, 'scheduled backup written');
    const complete = scheduledIn(dir).filter((b) => !b.partial);
    for (const old of complete.slice(0, Math.max(0, complete.length - settings.keep))) {
      rmSync(path.join(dir, old.name), { recursive: true, force: true });
      this.deps.logger.info({ dir: path.join(dir, old.name) }, 'old scheduled backup deleted');
    }
    return result.dir;
  }
}
