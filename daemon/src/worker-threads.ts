import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker module `<name>.ts` beside `moduleUrl` (`<name>.js` once built). From the
 * TypeScript sources (tests, tsx) the worker registers the TypeScript loader first.
 */
export function startWorker(moduleUrl: string, name: string, options: WorkerOptions): Worker {
  const fromSource = moduleUrl.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, moduleUrl);
  if (!fromSource) return new Worker(entry, options);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`, { ...options, eval: true });
}

/**
 * The one message a worker answers with, after which it is terminated. `exited` is the error when
 * it exits without answering.
 */
export async function oneAnswer<T>(worker: Worker, exited: (code: number) => Error): Promise<T> {
  try {
    // One promise: the exit that terminate() causes after the answer must not reject anything.
    return await new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(exited(code)));
    });
  } finally {
    await worker.terminate();
  }
}
