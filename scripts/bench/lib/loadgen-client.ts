import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PhaseResult, PhaseSpec } from './loadgen.js';
import type { SseCommand, SseStats } from './sse-clients.js';

export type { PhaseResult, PhaseSpec, SseStats };

/** A TypeScript module run in its own process (via tsx), answering `{ id, ... }` requests over IPC. */
class IpcChild {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();

  constructor(module: string) {
    this.child = fork(fileURLToPath(new URL(module, import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: { id: number; error?: string } & Record<string, unknown>) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(msg.error));
      else w.resolve(msg);
    });
    this.child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`${module} exited with ${code}`));
      this.waiting.clear();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  request(msg: object): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (r: unknown) => void, reject });
      this.child.send({ ...msg, id });
    });
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

/** Runs `loadgen.ts` in its own process and hands it phases one at a time. */
export class LoadGenerator extends IpcChild {
  constructor() {
    super('./loadgen.ts');
  }

  async run(phase: PhaseSpec): Promise<PhaseResult> {
    return (await this.request({ phase })).result as PhaseResult;
  }
}

/** Runs `sse-clients.ts` in its own process: opens and watches stream clients. */
export class StreamClients extends IpcChild {
  constructor() {
    super('./sse-clients.ts');
  }

  async send<T>(cmd: SseCommand): Promise<T> {
    return (await this.request(cmd)).body as T;
  }
}
