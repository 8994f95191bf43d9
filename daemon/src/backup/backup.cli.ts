import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { createBackup, restoreBackup } from './backup.js';

export const BACKUP_COMMANDS = ['backup', 'restore'] as const;
export type BackupCommand = (typeof BACKUP_COMMANDS)[number];

const USAGE = 'usage: sac backup <new backup directory> | sac restore <backup directory> [<master key file>]';

/**
 * `sac backup <dir>` and `sac restore <dir> [key file]` on the configured data dir (SAC_DATA_DIR,
 * SAC_MASTER_KEY). Writes what it did to `out`, problems to `err`; returns the exit code.
 */
export function runBackupCommand(
  command: BackupCommand,
  args: string[],
  config: Config,
  io: { out: (text: string) => void; err: (text: string) => void; clock: Pick<Clock, 'now'> },
): number {
  if (args.length < 1 || args.length > (command === 'restore' ? 2 : 1)) {
    io.err(`${USAGE}\n`);
    return 2;
  }
  if (config.store.kind !== 'sqlite') {
    io.err('SAC backup: the store is MongoDB (SAC_MONGODB_URI): back it up with mongodump (see README, "Backup and restore")\n');
    return 1;
  }
  try {
    if (command === 'backup') {
      const { dir, manifest, masterKeyFile } = createBackup({ dataDir: config.dataDir, target: args[0], masterKey: config.masterKey, clock: io.clock });
      io.out(`SAC backup written to ${dir} (migration level ${manifest.migration_level}, ${manifest.database.bytes} bytes, sha256 ${manifest.database.sha256})\n`);
      io.out(
        masterKeyFile
          ? `The master key that decrypts its stored secrets is NOT in it: it was saved apart to ${masterKeyFile} (mode 0600). Keep that file separately from the backup (another medium or a password safe); without it stored secrets cannot be read.\n`
          : 'The master key comes from SAC_MASTER_KEY and is NOT in the backup: keep it separately; a restore needs the same SAC_MASTER_KEY.\n',
      );
    } else {
      const manifest = restoreBackup({ source: args[0], dataDir: config.dataDir, masterKey: config.masterKey, masterKeyFile: args[1] });
      io.out(`SAC backup of ${manifest.created_at} restored into ${config.dataDir} (migration level ${manifest.migration_level}); start SAC on it.\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    io.err(`SAC ${command}: ${err.message} (${err.code})\n`);
    return 1;
  }
}
