import type { Readable } from 'node:stream';
import type { SshTarget } from '../ssh/index.js';
import type { SessionList, WinRmHostTarget } from '../winrm/index.js';

/** What one script left behind; a non-zero exit is an answer, not an error. */
export interface ShellResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** An administrator access test: whether the account can act there, in words safe to show. */
export interface AccessProbe {
  ok: boolean;
  detail: string;
  durationMs: number;
  /** The address connected to, when the transport reports it. */
  host?: string;
  /** The error code when `ok` is false, when the transport has one. */
  code?: string;
}

export interface ShellRunOptions {
  /** Budget of this one script. */
  timeoutMs: number;
}

/** Scripts run one after another on the host that answered. */
export interface ShellSession<Options extends ShellRunOptions = ShellRunOptions> {
  /** The address that answered. */
  readonly host: string;
  run(script: string, options: Options): Promise<ShellResult>;
  end(): void;
}

/**
 * Administrator access to a host's shell with the credentials in the settings, read at each call:
 * PowerShell over WinRM on Windows, sh over SSH on Linux. Remote actions and agent update pushes
 * go through it; `Target` is where the transport connects: a verified action target (action-target.ts).
 * Without credentials `open` and `test` throw the transport's `…/not_configured` error.
 */
export interface RemoteShell<Target, Session extends ShellSession = ShellSession> {
  /** Reaches the host within `timeoutMs` (SSH connects now; WinRM connects for each script, within its budget). */
  open(target: Target, timeoutMs: number): Promise<Session>;
  /** Tests administrator access (WinRM: a local administrator's shell; SSH: `sudo -n true`); never throws once configured. */
  test(target: Target, timeoutMs: number): Promise<AccessProbe>;
}

/** Windows over WinRM, with the session tools remote actions use. */
export interface WindowsShell extends RemoteShell<WinRmHostTarget> {
  /** Whether a Windows administrator is configured (else actions go to the agent). */
  configured(): Promise<boolean>;
  /** `qwinsta`, parsed. */
  listSessions(target: WinRmHostTarget, timeoutMs: number): Promise<SessionList>;
  /** `logoff <id> /v`; a non-zero exit is `winrm/command_failed` carrying the output. */
  logoff(target: WinRmHostTarget, sessionId: number, timeoutMs: number): Promise<ShellResult & { host: string; durationMs: number }>;
}

/**
 * Linux over SSH, to a verified target; a script may be fed a stream (a bundle upload), and its
 * output kept up to `maxOutput` characters per stream.
 */
export type LinuxShell = RemoteShell<SshTarget, ShellSession<ShellRunOptions & { stdin?: Readable; maxOutput?: number }>>;

/** Why a shell could not be reached or a script not finish, in words safe to show (never a credential). */
export class ShellFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShellFailure';
  }
}
