/**
 * Preloaded into the daemon under test by `bench:stream` (`node --import <this file>`; worker
 * threads inherit it), so the benchmark can say what holds the daemon's memory without any change
 * to the daemon. Every thread samples its V8 heap every 50 ms (`v8.getHeapStatistics()`: the
 * physical size of the heap, the part in use, and what V8 itself allocated outside it); the main
 * thread also samples `process.memoryUsage()` (RSS, memory of Buffers and other objects outside
 * the heaps). On SIGUSR2 the main thread asks every thread (BroadcastChannel) for the highest
 * figures of the window since the previous signal, and each appends one JSON line to the file
 * named by MEMORY_PROBE_FILE: `{ thread, heap_physical_mib, heap_used_mib, malloced_mib, ..., gc_major,
 * gc_minor, gc_ms }` (the collections of the window and their total duration);
 * with `--expose-gc` it then collects garbage and adds what is still in use. With
 * MEMORY_PROBE_SNAPSHOT_DIR set, each thread also writes a heap snapshot there (for DevTools'
 * Memory tab) on every report — slow, for finding what holds the heap, not for figures.
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const file = process.env.MEMORY_PROBE_FILE;
if (!file) throw new Error('memory-probe: MEMORY_PROBE_FILE is not set');

const mib = (b) => Math.round((b / 2 ** 20) * 10) / 10;
let peak = {};
const keep = (key, value) => {
  if (!(peak[key] >= value)) peak[key] = value;
};
const sample = () => {
  const h = v8.getHeapStatistics();
  keep('heap_physical_mib', mib(h.total_physical_size));
  keep('heap_used_mib', mib(h.used_heap_size));
  keep('malloced_mib', mib(h.malloced_memory));
  if (isMainThread) {
    const m = process.memoryUsage();
    keep('rss_mib', mib(m.rss));
    keep('external_mib', mib(m.external));
    keep('array_buffers_mib', mib(m.arrayBuffers));
  }
};
setInterval(sample, 50).unref();
// Collections in the window: full (mark-compact) ones and the time all of them took.
let gc = { major: 0, minor: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
    else gc.minor++;
    gc.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

const channel = new BroadcastChannel('sac-memory-probe');
channel.unref();
const snapshots = process.env.MEMORY_PROBE_SNAPSHOT_DIR;
const report = () => {
  sample();
  const line = { thread: isMainThread ? 'main' : `worker ${threadId}`, ...peak, gc_major: gc.major, gc_minor: gc.minor, gc_ms: Math.round(gc.ms) };
  gc = { major: 0, minor: 0, ms: 0 };
  if (snapshots) line.snapshot = v8.writeHeapSnapshot(`${snapshots}/thread-${threadId}-${Date.now()}.heapsnapshot`);
  if (typeof globalThis.gc === 'function') {
    // With --expose-gc: what stays after a full collection, the floor that live objects hold.
    globalThis.gc();
    line.heap_used_after_gc_mib = mib(v8.getHeapStatistics().used_heap_size);
    if (isMainThread) line.rss_after_gc_mib = mib(process.memoryUsage.rss());
  }
  appendFileSync(file, `${JSON.stringify(line)}\n`);
  peak = {};
};
channel.onmessage = report;
if (isMainThread) {
  process.on('SIGUSR2', () => {
    channel.postMessage('report');
    report();
  });
}
