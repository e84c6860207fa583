import { BalancedPool, Pool } from 'undici';
import { performance } from 'node:perf_hooks';
import { cpuByRole, machineCpuText } from './machine-cpu';

/**
 * HTTP load on loopback for the benchmarks.
 *
 * Open loop (`openLoopLoad`): requests are due at a fixed rate whether or not
 * earlier ones were answered, as independent users arrive, and each latency is
 * measured from the moment its request was due (not from when a free
 * connection sent it), so a server that falls behind shows it in its tail
 * instead of slowing the load down ("coordinated omission").
 * `sustainedRate` steps the rate up and reports the highest one the server
 * kept up with inside a latency bound.
 */
export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
export interface LoadResult {
  ok: number;
  failed: number;
  perSecond: number;
  latencies: number[];
}

/** Nearest-rank percentile of an ascending array (the one definition every bench uses). */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/**
 * undici's pool to a service on loopback: about half the CPU of node:http's client per request, so the load
 * generator leaves more of the machine to the server. Several ports (several processes of one service) share
 * the load through a balanced pool.
 */
export function loopbackPool(port: number | number[], options: Pool.Options): Pool {
  const ports = typeof port === 'number' ? [port] : port;
  if (ports.length === 1) return new Pool(`http://127.0.0.1:${ports[0]}`, options);
  const each = options.connections ? { ...options, connections: Math.ceil(options.connections / ports.length) } : options;
  return new BalancedPool(
    ports.map((p) => `http://127.0.0.1:${p}`),
    each,
  ) as unknown as Pool;
}

function sender(port: number | number[], connections: number) {
  const pool = loopbackPool(port, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const send = async (r: LoadRequest): Promise<number> => {
    try {
      const res = await pool.request({ method: r.method, path: r.path, headers: r.headers, body: r.body });
      await res.body.dump();
      return res.statusCode;
    } catch {
      return 0;
    }
  };
  return { send, close: () => pool.destroy() };
}

export interface OpenLoopOptions {
  /** The service's port, or the ports of its processes (the load spread over them). */
  port: number | number[];
  /** Requests per second. */
  rate: number;
  durationS: number;
  warmupS: number;
  next: () => LoadRequest;
  ok: (status: number) => boolean;
  /** Keep-alive connections at most (default 256); requests beyond wait for one, and that wait counts. */
  connections?: number;
}

export async function openLoopLoad(o: OpenLoopOptions): Promise<LoadResult> {
  const { send, close } = sender(o.port, o.connections ?? 256);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const start = performance.now();
  const measureFrom = start + o.warmupS * 1000;
  const total = Math.round(o.rate * (o.warmupS + o.durationS));
  // A count of outstanding requests, not a list of their promises: holding tens of thousands of
  // settled promises makes the generator's own young-generation collections slow, and its
  // pauses count as latency (each request is timed from when it was due).
  let outstanding = 0;
  let sent = 0;
  await new Promise<void>((done) => {
    const settle = () => {
      outstanding -= 1;
      if (sent === total && outstanding === 0) done();
    };
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * o.rate) + 1);
      for (; sent < due; sent += 1) {
        const dueAt = start + (sent / o.rate) * 1000;
        outstanding += 1;
        // send() answers every failure with a status of 0: it never rejects.
        void send(o.next()).then((status) => {
          if (dueAt >= measureFrom) {
            if (o.ok(status)) {
              ok += 1;
              latencies.push(performance.now() - dueAt);
            } else failed += 1;
          }
          settle();
        });
      }
      if (sent < total) setTimeout(tick, 1);
      else if (outstanding === 0) done();
    };
    tick();
  });
  await close();
  latencies.sort((a, b) => a - b);
  return { ok, failed, perSecond: o.durationS > 0 ? ok / o.durationS : 0, latencies };
}

export interface RateStep extends LoadResult {
  rate: number;
  p50: number;
  p99: number;
  sustained: boolean;
  /** Where the machine's CPU went during the step, by role (bench/support/machine-cpu.ts). */
  machineCpu: string;
  /** The control stream's latencies in the same step, when there is one. */
  control?: { p50: number; p99: number };
}

/**
 * A second open-loop stream run alongside every step, at its own fixed rate, to a
 * bare floor server (bench/support/bare-floor.ts): the same machine, the same
 * load generator, none of the service's work, so its tail is theirs.
 */
export type ControlStream = Pick<OpenLoopOptions, 'port' | 'next' | 'ok'> & { rate: number };

/** The control stream's rate in the benches: enough requests for a p99 per step, little beside the service's load. */
export const CONTROL_RATE = 250;

/** The control stream's highest p99 among the steps up to `rate` (a goal's range); NaN when none is. */
export function worstControlP99(steps: RateStep[], rate: number): number {
  const p99s = steps.filter((s) => s.rate <= rate).map((s) => s.control?.p99 ?? NaN);
  return p99s.length > 0 ? Math.max(...p99s) : NaN;
}

/**
 * Open-loop steps at rising `rates`: a step is sustained when every request
 * succeeded, at least 97% of the offered rate was answered in the window and
 * p99 stayed under `p99LimitMs`. Stops once the server is saturated (failures,
 * or p99 past ten times the bound).
 * Returns every step and `best`: the highest rate sustained along with every
 * rate below it (undefined if the first step was not), so that a lucky step
 * above an unsustained one never counts. Steps after that still run and print.
 */
export async function sustainedRate(
  o: Omit<OpenLoopOptions, 'rate'> & {
    rates: number[];
    p99LimitMs: number;
    onStep?: (s: RateStep) => void;
    /** Called before each step with how many requests it will send (e.g. to build them ahead, off the clock). */
    prepare?: (requests: number) => void;
    /** Seconds of unmeasured load at the first rate before the steps: a just-started server warms up (JIT, caches, pools). */
    serverWarmupS?: number;
    control?: ControlStream;
  },
) {
  const steps: RateStep[] = [];
  if (o.serverWarmupS) {
    o.prepare?.(Math.round(o.rates[0] * o.serverWarmupS));
    await openLoopLoad({ ...o, rate: o.rates[0], warmupS: o.serverWarmupS, durationS: 0 });
  }
  for (const rate of o.rates) {
    o.prepare?.(Math.round(rate * (o.warmupS + o.durationS)));
    const cpuBefore = cpuByRole();
    const startedAt = performance.now();
    const [r, control] = await Promise.all([
      openLoopLoad({ ...o, rate }),
      o.control ? openLoopLoad({ ...o.control, warmupS: o.warmupS, durationS: o.durationS }) : undefined,
    ]);
    const machineCpu = machineCpuText(cpuBefore, cpuByRole(), (performance.now() - startedAt) / 1000);
    const step: RateStep = { ...r, rate, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), sustained: false, machineCpu };
    if (control) step.control = { p50: percentile(control.latencies, 50), p99: percentile(control.latencies, 99) };
    step.sustained = r.failed === 0 && r.perSecond >= rate * 0.97 && step.p99 < o.p99LimitMs;
    steps.push(step);
    o.onStep?.(step);
    // Past saturation (failures, or a tail ten times the bound) higher rates tell nothing more.
    if (r.failed > 0 || step.p99 > 10 * o.p99LimitMs) break;
  }
  const firstMiss = steps.findIndex((s) => !s.sustained);
  const best = firstMiss === 0 ? undefined : steps[(firstMiss === -1 ? steps.length : firstMiss) - 1];
  return { steps, best };
}
