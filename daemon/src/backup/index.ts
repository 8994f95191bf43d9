/**
 * Backup and restore of the embedded store: `createBackup` (an online `VACUUM INTO` snapshot and a
 * manifest, the master key kept apart), `verifyBackup`, `restoreBackup` into an empty data dir,
 * the `sac backup` / `sac restore` commands, and the scheduled backups of the `backup` setting.
 */
export { BACKUP_COMMANDS, runBackupCommand, type BackupCommand } from './backup.cli.js';
export { createBackup, restoreBackup, verifyBackup } from './backup.js';
export { checkBackupSettings, ScheduledBackups } from './backup.schedule.js';
export { backupOnThread } from './backup.thread.js';
