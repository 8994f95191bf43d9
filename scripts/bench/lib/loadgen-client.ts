import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PhaseResult, PhaseSpec } from './loadgen.js';

export type { PhaseResult, PhaseSpec };

/** Runs `loadgen.ts` in its own process and hands it phases one at a time. */
export class LoadGenerator {
  private readonly child: ChildProcess;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: PhaseResult) => void; reject: (e: Error) => void }>();

  constructor() {
    this.child = fork(fileURLToPath(new URL('./loadgen.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (msg: { id: number; result?: PhaseResult; error?: string }) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(msg.error));
      else w.resolve(msg.result!);
    });
    this.child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`load generator exited with ${code}`));
      this.waiting.clear();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  run(phase: PhaseSpec): Promise<PhaseResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, phase });
    });
  }

  close(): void {
    this.child.disconnect();
  }
}
