import pino from 'pino';
import { BACKUP_COMMANDS, runBackupCommand, type BackupCommand } from './backup/index.js';
import { systemClock } from './clock.js';
import { loadConfig } from './config.js';
import type { RunningSac } from './sac.js';
import { startBanner } from './start-banner.js';

/**
 * Entry point: parse the environment, start SAC, print first-start secrets once, stop on signals.
 * `main.js backup <dir>` / `main.js restore <dir>` run that command on the configured data dir instead.
 */
async function main(): Promise<void> {
  const result = loadConfig(process.env);
  if (!result.ok) {
    process.stderr.write(`SAC: invalid configuration:\n${result.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  const config = result.config;
  const [command, ...args] = process.argv.slice(2);
  if (command !== undefined) {
    if (!(BACKUP_COMMANDS as readonly string[]).includes(command)) {
      process.stderr.write(`SAC: unknown command ${JSON.stringify(command)} (commands: ${BACKUP_COMMANDS.join(', ')})\n`);
      process.exit(2);
    }
    const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t), clock: systemClock };
    process.exit(runBackupCommand(command as BackupCommand, args, config, io));
  }
  // Asynchronous writes: lines logged while one write is in flight go out together in the next,
  // instead of one blocking write per ingested event (measured ~4 % of the daemon's time at peak
  // ingest). pino flushes what is pending at exit; a kill -9 can lose the lines still in memory.
  const logger = pino({ level: config.logLevel, base: { svc: 'sac' } }, pino.destination({ dest: 1, sync: false }));
  let sac: RunningSac;
  try {
    // Loaded here, not at the top: the backup commands need none of the daemon's modules.
    const { startSac } = await import('./sac.js');
    sac = await startSac(config, { logger });
  } catch (err) {
    logger.fatal({ err: { message: (err as Error).message } }, 'SAC failed to start');
    process.exit(1);
  }
  // Handlers first: whoever reads the banner may signal at once.
  const stop = (signal: string) => {
    logger.info({ signal }, 'SAC stopping');
    void sac.close().then(() => process.exit(0));
    systemClock.setTimeout(() => process.exit(1), 10_000);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  process.stderr.write(startBanner(sac, config.auth.adminUsername, process.stderr.isTTY === true));
  if (sac.generatedApiKey || sac.generatedAdminPassword) {
    // Where the secrets are, never what they are: stdout is the JSON log stream that log shippers keep.
    logger.info(
      { api_key_file: sac.generatedApiKey ? sac.apiKeyFile : undefined, admin_password_file: sac.generatedAdminPassword ? sac.adminPasswordFile : undefined },
      'first-start secrets written (mode 0600)',
    );
  }
}

void main();
