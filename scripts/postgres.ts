import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

/** The directory of Debian's PostgreSQL server programs (newest version), or PG_BIN_DIR. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error('PostgreSQL not found under /usr/lib/postgresql: run scripts/setup-test-deps.sh');
  return path.join(root, versions[0], 'bin');
}

export interface RunningPostgres {
  /** Connection URL for FerretDB's `--postgresql-url`. */
  url: string;
  port: number;
  dir: string;
  /** Transactions committed so far in the cluster (read-only ones included): the benchmark's profile. */
  commits(): number;
  /** WAL flushes to disk so far (`pg_stat_wal.wal_sync`): what a durable write waits for. */
  walSyncs(): number;
  /**
   * Rows inserted, updated and deleted so far per MongoDB collection of database `db` (FerretDB
   * keeps a database in a schema of its name, each collection in a table named after it plus a
   * hash suffix). A backend reports its counters when idle for a while (up to 10 s later).
   */
  tableWrites(db: string): Map<string, { ins: number; upd: number; del: number }>;
  stop(): Promise<void>;
}

/**
 * A private PostgreSQL cluster for one test run or benchmark: `initdb` in a fresh temporary
 * directory, the server on a loopback port with its socket in that directory — no system service,
 * nothing shared with a cluster the machine may run. PostgreSQL refuses to run as root, so as root
 * the cluster belongs to the `postgres` account Debian's package creates and runs under it.
 * fsync stays on: a write FerretDB acknowledges is on disk, as in production.
 */
export async function startPostgres(opts: { port?: number } = {}): Promise<RunningPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sac-postgres-'));
  const data = path.join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  const runAs = (cmd: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  if (asRoot) {
    const pw = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(dir, Number(pw), Number(gid));
    chownSync(data, Number(pw), Number(gid));
  }
  const [initCmd, initArgs] = runAs(path.join(bin, 'initdb'), ['-D', data, '-U', 'sac', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '-N']);
  execFileSync(initCmd, initArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = opts.port ?? (await freePort());
  const [cmd, args] = runAs(path.join(bin, 'postgres'), [
    '-D', data,
    '-h', '127.0.0.1',
    '-p', String(port),
    '-k', dir,
    // FerretDB's pool (scripts/ferretdb.ts, 200) and the benchmark's and tests' own connections.
    '-c', 'max_connections=250',
    '-c', 'shared_buffers=128MB',
    '-c', 'logging_collector=off',
    '-c', 'log_min_messages=warning',
  ]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PostgreSQL exited with ${child.exitCode}:\n${output}`);
    try {
      execFileSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'sac', '-d', 'postgres'], { stdio: 'ignore' });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not answer within 30 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const query = (sql: string): string =>
    execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'sac', '-d', 'postgres', '-Atc', sql], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  return {
    url: `postgres://sac@127.0.0.1:${port}/postgres`,
    port,
    dir,
    commits() {
      return Number(query('SELECT sum(xact_commit) FROM pg_stat_database'));
    },
    walSyncs() {
      return Number(query('SELECT wal_sync FROM pg_stat_wal'));
    },
    tableWrites(db) {
      const out = new Map<string, { ins: number; upd: number; del: number }>();
      if (!/^\w+$/.test(db)) throw new Error(`not a database name: ${db}`);
      const rows = query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = '${db}'`);
      for (const row of rows.split('\n')) {
        const [table, ins, upd, del] = row.split('|');
        if (del === undefined || table.startsWith('_ferretdb')) continue;
        const collection = table.replace(/_[0-9a-f]{8}$/, '');
        const sum = out.get(collection) ?? { ins: 0, upd: 0, del: 0 };
        out.set(collection, { ins: sum.ins + Number(ins), upd: sum.upd + Number(upd), del: sum.del + Number(del) });
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        const [stopCmd, stopArgs] = runAs(path.join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-s']);
        try {
          execFileSync(stopCmd, stopArgs, { stdio: 'ignore' });
        } catch {
          child.kill('SIGKILL');
        }
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
