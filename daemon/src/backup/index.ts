/**
 * Backup and restore of the embedded store: `createBackup` (an online `VACUUM INTO` snapshot and a
 * manifest, the master key kept apart), `verifyBackup`, `restoreBackup` into an empty data dir, and
 * the `sac backup` / `sac restore` commands.
 */
export { BACKUP_COMMANDS, runBackupCommand, type BackupCommand } from './backup.cli.js';
export { createBackup, masterKeyFileOf, restoreBackup, verifyBackup, type BackupManifest, type BackupResult } from './backup.js';
export { checkBackupSettings, ScheduledBackups, scheduledName } from './backup.schedule.js';
export { backupOnThread } from './backup.thread.js';
