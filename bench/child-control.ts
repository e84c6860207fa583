/**
 * The control channel of bench:auction's child processes (auction, floor,
 * DSPs): each announces what it serves once ready, then answers the parent's
 * IPC messages: 'gc' (its GC pauses since the last 'gc', when BENCH_GC_TRACE=1), 'cpu' (its CPU time so far, and its event-loop delay p99 and
 * max since the last 'cpu': how long a ready callback waited), 'profile-start' / 'profile-stop'
 * (a V8 CPU profile of exactly the measured steps, written to BENCH_CPU_PROF)
 * and 'stop'.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gcTrace } from './gc-trace';

export function serveBenchControl(ready: Record<string, unknown>, name: string, stop: () => Promise<void> | void, more: Record<string, () => unknown> = {}) {
  let profiler: Session | null = null;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const gcs = gcTrace();
  const post = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      profiler!.post(method, params, (err, result) => (err ? reject(err) : resolve(result)));
    });
  const answer = async (m: string) => {
    if (m === 'cpu') {
      process.send!({ cpu: process.cpuUsage(), loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 });
      return void loop.reset();
    }
    if (m === 'gc') return void process.send!({ gc: gcs.take() });
    if (more[m]) return void process.send!({ [m]: more[m]() });
    if (m === 'profile-start' && process.env.BENCH_CPU_PROF) {
      profiler = new Session();
      profiler.connect();
      await post('Profiler.enable');
      await post('Profiler.start');
      // BENCH_HEAP_PROF=1: also sample allocations that survive young-generation GCs (what gets promoted);
      // BENCH_HEAP_PROF=all: every allocation, short-lived ones included (where the bytes per request go).
      if (process.env.BENCH_HEAP_PROF) {
        await post('HeapProfiler.startSampling', {
          samplingInterval: 16384,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: process.env.BENCH_HEAP_PROF === 'all',
        });
      }
      return void process.send!({ profiling: true });
    }
    if (m === 'profile-stop' && profiler) {
      const { profile } = await post('Profiler.stop');
      // Created here: a missing directory would otherwise fail the write, and the parent would wait for an answer forever.
      mkdirSync(process.env.BENCH_CPU_PROF!, { recursive: true });
      const file = path.join(process.env.BENCH_CPU_PROF!, `${name}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      if (process.env.BENCH_HEAP_PROF)
        writeFileSync(file.replace(/cpuprofile$/, 'heapprofile'), JSON.stringify((await post('HeapProfiler.stopSampling')).profile));
      profiler.disconnect();
      profiler = null;
      return void process.send!({ profile: file });
    }
    if (m === 'profile-start' || m === 'profile-stop') return void process.send!({});
    if (m === 'stop') {
      await stop();
      process.exit(0);
    }
  };
  process.on('message', (m: string) => {
    answer(m).catch((err: unknown) => {
      console.error(`${name}: ${m} failed: ${(err as Error).message}`);
      process.exit(1);
    });
  });
  process.send!(ready);
}
