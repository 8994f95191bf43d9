/**
 * Preloaded into the daemon under test by `bench:soak` (`node --import <this file>`), so the soak
 * reads figures only the daemon's own process knows, without any change to the daemon: the main
 * thread's event-loop delay (perf_hooks histogram, 10 ms resolution) and the V8 heap in use
 * (sampled every second). On SIGUSR2 it appends one JSON line for the window since the previous
 * signal to the file named by SOAK_PROBE_FILE, then starts a new window:
 * `{ loop_p99_ms, loop_max_ms, heap_min_mib, heap_max_mib }`. The lowest heap of a window is the
 * floor the garbage collector got back to — what a leak raises.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

// Worker threads inherit `--import`; only the main thread's loop is measured.
if (isMainThread) {
  const file = process.env.SOAK_PROBE_FILE;
  if (!file) throw new Error('daemon-probe: SOAK_PROBE_FILE is not set');

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let heapMin = Number.POSITIVE_INFINITY;
  let heapMax = 0;
  const sampleHeap = () => {
    const used = process.memoryUsage().heapUsed;
    heapMin = Math.min(heapMin, used);
    heapMax = Math.max(heapMax, used);
  };
  setInterval(sampleHeap, 1000).unref();

  process.on('SIGUSR2', () => {
    sampleHeap();
    const mib = (b) => b / 2 ** 20;
    appendFileSync(
      file,
      `${JSON.stringify({ loop_p99_ms: loop.percentile(99) / 1e6, loop_max_ms: loop.max / 1e6, heap_min_mib: mib(heapMin), heap_max_mib: mib(heapMax) })}\n`,
    );
    loop.reset();
    heapMin = Number.POSITIVE_INFINITY;
    heapMax = 0;
  });
}
