import { PerformanceObserver, performance } from 'node:perf_hooks';

/** A GC pause: when it started (ms since the epoch, comparable across processes) and how long it took. */
export type GcPause = [startMs: number, durationMs: number];

/**
 * BENCH_GC_TRACE=1: this process's GC pauses, kept until taken. Used to tell
 * whether a bench's slow requests coincided with a collection, and in which
 * process (the service, the DSPs or the load generator).
 */
export function gcTrace() {
  let pauses: GcPause[] = [];
  if (process.env.BENCH_GC_TRACE === '1') {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) pauses.push([performance.timeOrigin + e.startTime, e.duration]);
    }).observe({ entryTypes: ['gc'] });
  }
  return {
    take: (): GcPause[] => {
      const all = pauses;
      pauses = [];
      return all;
    },
  };
}

/** Of the given requests ([sent at, ms]), how many had a GC pause of `pauses` start while they were open. */
export function overlapping(requests: readonly [number, number][], pauses: readonly GcPause[]): number {
  const starts = pauses.map(([s]) => s).sort((a, b) => a - b);
  return requests.filter(([sent, ms]) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] < sent) lo = mid + 1;
      else hi = mid;
    }
    return lo < starts.length && starts[lo] <= sent + ms;
  }).length;
}
