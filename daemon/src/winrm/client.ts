import { isTargetAddress } from '../target-address.js';
import { AppError } from '../errors.js';
import { clixmlToText } from './clixml.js';
import { decodeOem, type OemCodePage } from './codepages.js';
import type { SessionView } from '../../../shared/src/index.js';
import { parseQwinsta } from './qwinsta.js';
import { WinRmConnection, type WinRmEndpoint } from './transport.js';
import { winrmError } from './winrm.errors.js';
import * as wsman from './wsman.js';

export interface WinRmClientOptions {
  /** `DOMAIN\user`, `user@domain` or a local account name. */
  username: string;
  password: string;
  /** `https` (default port 5986) or `http` (5985, messages sealed with NTLM). */
  transport: 'https' | 'http';
  port?: number;
  /** Verify the HTTPS certificate; default true. */
  verifyTls?: boolean;
  /** CA certificates (PEM) to trust for HTTPS instead of Node's default bundle, e.g. a corporate CA. */
  ca?: string | Buffer;
  /** OEM code page the host's console writes in: 437 (default) or 866 for Russian Windows. */
  codepage?: OemCodePage;
  /** Budget for one whole run (connect, shell, command, output, cleanup) in ms; default 30000. */
  timeoutMs?: number;
}

/** A verified host: connect to `address`; the HTTPS certificate and the NTLM service name are checked for `name`. */
export interface WinRmHostTarget {
  address: string;
  name: string;
}

/**
 * A host to reach: one address, or candidates tried in order where the next is tried only while
 * the previous ones are unreachable, or a verified target. Every address and name must be a DNS
 * name or an IP literal (`winrm/invalid_target` otherwise) before any URL is built.
 */
export type WinRmTarget = string | readonly string[] | WinRmHostTarget;

export interface WinRmResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  durationMs: number;
  /** The candidate address that answered. */
  host: string;
}

export interface WinRmTestResult {
  ok: boolean;
  detail: string;
  durationMs: number;
  /** The error code when `ok` is false. */
  code?: string;
}

export interface SessionList {
  sessions: SessionView[];
  raw: string;
  host: string;
  durationMs: number;
}

export interface WinRmClient {
  /** Runs a command line in a cmd shell; a non-zero exit code is returned, not thrown. */
  run(target: WinRmTarget, command: string, args?: readonly string[]): Promise<WinRmResult>;
  /** Runs a PowerShell script through `powershell -EncodedCommand`. */
  runPowerShell(target: WinRmTarget, script: string): Promise<WinRmResult>;
  /** Checks that the account opens a shell and is a local administrator there; never throws. */
  test(target: WinRmTarget): Promise<WinRmTestResult>;
  /** `qwinsta` parsed, with the raw text. */
  listSessions(target: WinRmTarget): Promise<SessionList>;
  /** `logoff <id> /v`; a non-zero exit is `winrm/command_failed` carrying the output. */
  logoff(target: WinRmTarget, sessionId: number): Promise<WinRmResult>;
}

/** Output kept from one command; qwinsta on a busy terminal server is tens of kilobytes. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Base64 of a script that still fits the 32767-character CreateProcess command line. */
const MAX_ENCODED_SCRIPT = 32_000;


function candidates(target: WinRmTarget): WinRmHostTarget[] {
  const list: WinRmHostTarget[] =
    typeof target === 'string' || Array.isArray(target)
      ? [...new Set((typeof target === 'string' ? [target] : (target as readonly string[])).map((h) => h.trim()).filter(Boolean))].map((h) => ({ address: h, name: h }))
      : [target as WinRmHostTarget];
  for (const t of list) {
    for (const value of [t.address, t.name]) {
      if (!isTargetAddress(value)) throw winrmError('winrm/invalid_target', `"${value.slice(0, 100)}" is not a host name or an IP address`, { target: value.slice(0, 100) });
    }
  }
  return list;
}

export function createWinRmClient(opts: WinRmClientOptions): WinRmClient {
  if (!opts.username || !opts.password) throw winrmError('winrm/not_configured', 'No Windows administrator is configured for WinRM');
  const codepage = opts.codepage ?? 437;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const port = opts.port ?? (opts.transport === 'https' ? 5986 : 5985);
  // Seconds the server may hold a Receive before answering "no output yet": a third of the
  // budget, so a long command is polled several times and never holds a request past the budget.
  const OPERATION_TIMEOUT_S = Math.min(20, Math.max(1, Math.floor(timeoutMs / 3000)));

  async function runOn(target: WinRmHostTarget, command: string, args: readonly string[], skipCmdShell: boolean, signal: AbortSignal): Promise<{ stdout: Buffer; stderr: Buffer; exitCode: number }> {
    const host = target.address;
    const endpoint: WinRmEndpoint = { host, name: target.name, port, https: opts.transport === 'https', verifyTls: opts.verifyTls ?? true, ca: opts.ca };
    const conn = new WinRmConnection(endpoint, { username: opts.username, password: opts.password }, signal);
    const to = conn.url;
    const call = async (xml: string, step: string): Promise<string> => {
      const res = await conn.send(xml);
      const fault = wsman.parseFault(res.xml);
      if (fault && wsman.isAccessDenied(fault)) throw winrmError('winrm/auth_failed', `WinRM on ${host} denied access: ${fault.reason}`, { host, step, wsman_code: fault.wsmanCode });
      if (fault) throw winrmError('winrm/command_failed', `WinRM ${step} failed on ${host}: ${fault.reason}`, { host, step, wsman_code: fault.wsmanCode });
      return res.xml;
    };
    let shellId: string | null = null;
    try {
      shellId = wsman.parseShellId(await call(wsman.createShellMessage(to, OPERATION_TIMEOUT_S, codepage), 'Create'));
      if (!shellId) throw winrmError('winrm/bad_response', `WinRM on ${host} created no shell`, { host });
      const commandId = wsman.parseCommandId(await call(wsman.commandMessage(to, OPERATION_TIMEOUT_S, shellId, command, args, skipCmdShell), 'Command'));
      if (!commandId) throw winrmError('winrm/bad_response', `WinRM on ${host} started no command`, { host });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let exitCode: number | null = null;
      let outputBytes = 0;
      for (;;) {
        let chunk: wsman.ReceiveChunk;
        try {
          chunk = wsman.parseReceive(await call(wsman.receiveMessage(to, OPERATION_TIMEOUT_S, shellId, commandId), 'Receive'));
        } catch (err) {
          // A Receive that waited OperationTimeout without output is "ask again", not a failure.
          if (err instanceof AppError && (err.details as { wsman_code?: unknown }).wsman_code === wsman.RECEIVE_TIMED_OUT) continue;
          throw err;
        }
        stdout.push(chunk.stdout);
        stderr.push(chunk.stderr);
        outputBytes += chunk.stdout.length + chunk.stderr.length;
        if (outputBytes > MAX_OUTPUT_BYTES) throw winrmError('winrm/bad_response', `The output of ${command.split(' ')[0]} on ${host} exceeds ${MAX_OUTPUT_BYTES} bytes`, { host });
        if (chunk.done) {
          exitCode = chunk.exitCode ?? -1;
          break;
        }
      }
      await call(wsman.signalMessage(to, OPERATION_TIMEOUT_S, shellId, commandId), 'Signal').catch(() => undefined);
      return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), exitCode };
    } finally {
      // The shell is deleted even when the command failed, so hosts do not collect idle shells.
      if (shellId && !signal.aborted) await call(wsman.deleteShellMessage(to, OPERATION_TIMEOUT_S, shellId), 'Delete').catch(() => undefined);
      conn.close();
    }
  }

  async function execute(target: WinRmTarget, command: string, args: readonly string[], skipCmdShell: boolean): Promise<WinRmResult> {
    const hosts = candidates(target);
    if (hosts.length === 0) throw winrmError('winrm/unreachable', 'The host has no address to reach it by', { hosts: [] });
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    let lastError: unknown = null;
    for (const candidate of hosts) {
      const host = candidate.address;
      try {
        const out = await runOn(candidate, command, args, skipCmdShell, signal);
        return {
          stdout: decodeOem(out.stdout, codepage),
          stderr: decodeOem(out.stderr, codepage),
          exitCode: out.exitCode,
          durationMs: Math.round(performance.now() - started),
          host,
        };
      } catch (err) {
        if (err instanceof AppError && err.code === 'winrm/unreachable' && !signal.aborted) {
          lastError = err;
          continue;
        }
        if (signal.aborted) throw winrmError('winrm/timeout', `WinRM on ${host} did not finish within ${timeoutMs} ms`, { host, timeout_ms: timeoutMs }, err);
        throw err;
      }
    }
    if (hosts.length === 1) throw lastError as Error;
    const addresses = hosts.map((h) => h.address);
    throw winrmError('winrm/unreachable', `WinRM is unreachable on every address of the host (${addresses.join(', ')})`, { hosts: addresses }, lastError);
  }

  function run(target: WinRmTarget, command: string, args: readonly string[] = []): Promise<WinRmResult> {
    return execute(target, command, args, false);
  }

  async function runPowerShell(target: WinRmTarget, script: string): Promise<WinRmResult> {
    const encoded = Buffer.from(script, 'utf16le').toString('base64');
    if (encoded.length > MAX_ENCODED_SCRIPT) throw new AppError('request/too_large', 'The PowerShell script is too long for one WinRM command line');
    const res = await execute(target, 'powershell.exe', ['-NoProfile', '-NonInteractive', '-EncodedCommand', encoded], true);
    return { ...res, stderr: clixmlToText(res.stderr) };
  }

  async function test(target: WinRmTarget): Promise<WinRmTestResult> {
    const started = performance.now();
    try {
      const res = await run(target, 'whoami', ['/user', '/groups', '/fo', 'csv', '/nh']);
      if (res.exitCode !== 0) return { ok: false, detail: `whoami exited with ${res.exitCode} on ${res.host}`, durationMs: res.durationMs, code: 'winrm/command_failed' };
      const who = /^"([^"]*)"/.exec(res.stdout.trim())?.[1] || opts.username;
      // BUILTIN\Administrators by SID: its name is localised, the SID is not.
      if (!res.stdout.includes('"S-1-5-32-544"')) {
        return { ok: false, detail: `${who} reached ${res.host} but is not in its local Administrators group`, durationMs: res.durationMs, code: 'winrm/auth_failed' };
      }
      return { ok: true, detail: `Connected to ${res.host} as ${who}, a local administrator`, durationMs: res.durationMs };
    } catch (err) {
      const durationMs = Math.round(performance.now() - started);
      if (err instanceof AppError) return { ok: false, detail: err.message, durationMs, code: err.code };
      return { ok: false, detail: 'Unexpected WinRM failure', durationMs, code: 'winrm/bad_response' };
    }
  }

  async function listSessions(target: WinRmTarget): Promise<SessionList> {
    const res = await run(target, 'qwinsta');
    // qwinsta exits 1 when it printed sessions but could not query one of them; the table is still valid.
    const sessions = parseQwinsta(res.stdout);
    if (sessions.length === 0 && res.exitCode !== 0) {
      throw winrmError('winrm/command_failed', `qwinsta failed on ${res.host} (exit ${res.exitCode})`, { host: res.host, exit_code: res.exitCode, stderr: res.stderr.slice(0, 2000) });
    }
    return { sessions, raw: res.stdout, host: res.host, durationMs: res.durationMs };
  }

  async function logoff(target: WinRmTarget, sessionId: number): Promise<WinRmResult> {
    if (!Number.isSafeInteger(sessionId) || sessionId < 0 || sessionId > 0xffffffff) {
      throw new AppError('request/invalid_parameter', 'session_id must be a non-negative integer');
    }
    const res = await run(target, 'logoff', [String(sessionId), '/v']);
    if (res.exitCode !== 0) {
      throw winrmError('winrm/command_failed', `logoff ${sessionId} failed on ${res.host} (exit ${res.exitCode})`, {
        host: res.host,
        exit_code: res.exitCode,
        stdout: res.stdout.slice(0, 2000),
        stderr: res.stderr.slice(0, 2000),
      });
    }
    return res;
  }

  return { run, runPowerShell, test, listSessions, logoff };
}
