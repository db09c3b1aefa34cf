// Preloaded by bench/memory.ts into each part it starts (node --expose-gc --import this file):
// samples heapUsed every 100 ms and appends its peak so far to MEMORY_PROBE_FILE every 2 s (so
// the figure survives a crash); on SIGUSR2 it collects garbage and appends the heap used after.
// Plain JavaScript: node loads it before anything else, without tsx. Peak RSS is read by the
// bench from /proc (VmHWM).
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.MEMORY_PROBE_FILE;
let peakHeapUsed = 0;
const sample = () => (peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed));
const write = (line) => file && fs.appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...line })}\n`);
setInterval(sample, 100).unref();
setInterval(() => write({ peakHeapUsed }), 2_000).unref();

process.on('SIGUSR2', () => {
  sample();
  // Twice: the first pass frees objects whose finalizers the second one needs to see gone.
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  write({ peakHeapUsed, heapUsedAfterGc: heapUsed, rss, heapLimit: v8.getHeapStatistics().heap_size_limit });
  if (process.env.MEMORY_PROBE_SNAPSHOT) v8.writeHeapSnapshot(process.env.MEMORY_PROBE_SNAPSHOT);
});
