import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../free-port.js';

/** Repository root (scripts/bench/lib → ../../..). */
export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

const CLK_TCK = 100;
const PAGE_KB = 4;

/** Resident set size of a process now and the part of it mapped from files (the node binary's code, libraries), in MiB. */
function residentMiB(pid: number): { rss: number; file: number } {
  const statm = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
  return { rss: (Number(statm[1]) * PAGE_KB) / 1024, file: (Number(statm[2]) * PAGE_KB) / 1024 };
}

/** Resident set size of a process now, in MiB (from /proc). */
export function rssMiB(pid: number): number {
  return residentMiB(pid).rss;
}

/** The whole machine's CPU time so far, busy and idle (from /proc/stat, in clock ticks). */
function machineTicks(): { busy: number; idle: number } {
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait };
}

/** Measures the share of all cores busy from now until `stop()`: whether the machine had CPU to spare. */
export function sampleMachine(): { stop(): { busyPercent: number } } {
  const start = machineTicks();
  return {
    stop() {
      const end = machineTicks();
      const busy = end.busy - start.busy;
      return { busyPercent: (busy / Math.max(1, busy + end.idle - start.idle)) * 100 };
    },
  };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/**
 * Samples a process's RSS every 100 ms; `stop()` returns the peak (with the part of it mapped from
 * files at that moment) and the CPU share used meanwhile.
 */
export function sampleProcess(pid: number): { stop(): { peakRssMiB: number; peakFileRssMiB: number; cpuPercent: number } } {
  let peak = residentMiB(pid);
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const sample = () => {
    const now = residentMiB(pid);
    if (now.rss > peak.rss) peak = now;
  };
  const timer = setInterval(() => {
    try {
      sample();
    } catch {
      // the process has exited
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      let cpu = cpu0;
      try {
        sample();
        cpu = cpuSeconds(pid);
      } catch {
        // exited
      }
      return { peakRssMiB: peak.rss, peakFileRssMiB: peak.file, cpuPercent: ((cpu - cpu0) / ((performance.now() - t0) / 1000)) * 100 };
    },
  };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Polls `url` until it answers 200, or throws after `ms`. */
export async function waitForHttp(url: string, child: ChildProcess, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${ms} ms`);
}

/**
 * Compiles the daemon (`npm run build`) so benchmarks and the durability test run the shipped JS.
 * `BENCH_NO_BUILD=1` runs the existing dist/ as it is.
 */
export function buildDaemon(): void {
  if (process.env.BENCH_NO_BUILD === '1') return;
  const res = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) throw new Error('npm run build failed');
}

/**
 * The Node flags and environment `npm start` runs the daemon with (package.json
 * `config.daemon_node_flags`, `config.daemon_env`): see "What holds the memory" in docs/performance.md.
 */
const DAEMON_CONFIG = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { config: { daemon_node_flags: string; daemon_env: string } }).config;
const DAEMON_NODE_FLAGS: string[] = DAEMON_CONFIG.daemon_node_flags.split(' ').filter(Boolean);
const DAEMON_ENV: Record<string, string> = Object.fromEntries(
  DAEMON_CONFIG.daemon_env.split(' ').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

export interface DaemonProcess {
  url: string;
  child: ChildProcess;
  logFile: string;
  /** Resolves with the exit code or signal once the process has gone. */
  exited: Promise<number | string | null>;
}

/**
 * Starts the daemon as a child process with `env`, its log in `<dataDir>/sac.log`, and waits for
 * `/health`: the built `dist/daemon/src/main.js`, or with `fromSource` the TypeScript entry via
 * tsx (tests, so they never run a stale build).
 */
export async function startDaemon(
  env: Record<string, string>,
  opts: { execArgv?: string[]; fromSource?: boolean; healthMs?: number } = {},
): Promise<DaemonProcess> {
  const port = env.SAC_PORT && env.SAC_PORT !== '0' ? Number(env.SAC_PORT) : await freePort();
  const logFile = path.join(env.SAC_DATA_DIR, 'sac.log');
  const fd = openSync(logFile, 'a');
  const entry = opts.fromSource ? ['--import', 'tsx', path.join(ROOT, 'daemon/src/main.ts')] : [path.join(ROOT, 'dist/daemon/src/main.js')];
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...(opts.execArgv ?? []), ...entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SAC_HOST: '127.0.0.1', ...DAEMON_ENV, ...env, SAC_PORT: String(port) },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child, opts.healthMs);
  } catch (err) {
    // Not left running behind a failed start.
    child.kill('SIGKILL');
    throw err;
  }
  return { url, child, logFile, exited };
}

/** Machine and run description printed at the top of each benchmark. */
export function machineLine(): string {
  const cpus = os.cpus();
  return `machine: ${cpus[0]?.model ?? 'unknown cpu'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ` +
    `${os.platform()} ${os.release()}, node ${process.version}; date: ${new Date().toISOString()}`;
}
