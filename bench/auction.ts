/**
 * bench:auction: the auction service under load, against three reference DSPs
 * on loopback (10 ms simulated latency), and in the same run the same load
 * through a bare fan-out floor (bench/auction-floor.ts). Open-loop load at
 * rising rates (each step BENCH_STEP_SECONDS long); a rate is sustained when
 * every request answered 200 and p99 < 50 ms.
 *
 * overhead = end-to-end latency minus the slowest DSP's answer time for that
 * request (each reference DSP records, by request_id, how long it really held
 * it). Three processes besides this load generator: the DSPs
 * (bench/auction-dsps.ts), then the service under test, then the floor, the
 * last two as ahead-of-time compiled JS with the same keep-alive DSP agent.
 * BENCH_CPU_PROF=<dir> writes a CPU profile of each service's measured steps
 * (summarize it with `npx tsx bench/profile-top.ts <file>`). BENCH_GC_TRACE=1 prints, per
 * step, how many of the slowest 2% of requests a GC pause of the service, the
 * DSPs or the generator overlapped (bench/gc-trace.ts). BENCH_AUCTION_PROCESSES=2 spreads
 * the load over two auction processes (undici's BalancedPool; CPU per request summed over
 * both; the metrics printed are the first process's).
 *
 *   npm run bench:auction        (BENCH_RATES=100,200,... BENCH_STEP_SECONDS=3)
 *
 * Last line: auction rps=... overhead_p50_ms=... overhead_p99_ms=... at_rps=... floor_rps=... floor_overhead_p99_ms=...
 * controls_cpu_p50_ms=... (what pacing and frequency caps add to the in-house bidder per auction: bench/controls-cost.ts)
 * worst_overhead_p99_ms=... floor_worst_overhead_p99_ms=... (the worst step up to 1,000/s of each) cpu_ratio=... (CPU per auction over the
 * floor's, the steps both sustained) cpu_ratio_paired=... (the median of BENCH_PAIRS ratios, each of one auction step and one floor
 * step at 1,000/s run back to back after both ramps: the machine's speed drifts between them, bench/history.md)
 * fresh_conversations=1 (every request a conversation never seen: bench/support/fresh-conversations.ts; 0 with
 * BENCH_FRESH_CONVERSATIONS=0, the same conversation every time)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { build } from 'esbuild';
import type { Pool } from 'undici';
import { createDb } from '../lib/db';
import { createPublisher } from '../domain/publishers';
import { addDsp } from '../domain/dsps';
import { loopbackPool, percentile } from './support/load';
import { gcTrace, overlapping, type GcPause } from './gc-trace';
import { SERVICE_NODE_FLAGS } from '../dev/node-flags';
import { controlsCostMs } from './controls-cost';
import { freshConversation } from './support/fresh-conversations';

const GC_TRACE = process.env.BENCH_GC_TRACE === '1';
const generatorGcs = gcTrace();

const RATES = (process.env.BENCH_RATES ?? '100,200,300,400,500,600,800,1000,1200,1500,1800,2100,2500').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 3);
const TARGET_RPS = 500;
/** The paired steps: how many, and their rate (the goal's "every step up to 1,000/s"). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 5);
const PAIRED_RATE = 1000;
/** BENCH_AUCTION_PROCESSES=2: the load spread over that many auction processes (their CPU summed). */
const AUCTION_PROCESSES = Number(process.env.BENCH_AUCTION_PROCESSES ?? 1);
/** Every request a new conversation (default), or the same one each time (BENCH_FRESH_CONVERSATIONS=0). */
const FRESH_CONVERSATIONS = process.env.BENCH_FRESH_CONVERSATIONS !== '0';
const ROOT = path.resolve(__dirname, '..');
const BUILD_DIR = path.join(ROOT, 'node_modules/.cache/bench-auction');

interface StepResult {
  slowest?: [sentAt: number, ms: number][];
  all?: [sentAt: number, ms: number][];
  cpuMsPerRequest?: number;
  rate: number;
  achieved: number;
  ok: boolean;
  p50: number;
  p99: number;
  overheadP50: number;
  overheadP99: number;
  errors: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The children (auction, floor, DSPs) run as plain JS compiled ahead of time
 * with esbuild, one file per module as tsc would emit them (BENCH_TSX=1 runs
 * them under tsx instead), so neither side pays for a loader the other does not.
 */
async function compileChildren() {
  const files = ['auction', 'bench', 'dev', 'domain', 'generated', 'lib'].flatMap((dir) =>
    (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((f) => path.join(ROOT, dir, f)),
  );
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'));
  await build({ entryPoints: sources, outdir: BUILD_DIR, outbase: ROOT, format: 'cjs', platform: 'node', target: 'node20', logLevel: 'warning' });
  // Data the modules read (the safety model's weights, the content taxonomy's table) is copied as it is, beside them.
  const data = files.filter((f) => !f.endsWith('.ts') && statSync(f).isFile());
  for (const file of data) cpSync(file, path.join(BUILD_DIR, path.relative(ROOT, file)));
}

interface Child {
  proc: ChildProcess;
  ask<T = any>(message: string): Promise<T>;
}

async function child(script: string, env: Record<string, string> = {}, serviceFlags: string[] = []): Promise<Child & { ready: any }> {
  const tsx = process.env.BENCH_TSX === '1';
  const file = tsx ? path.join(__dirname, `${script}.ts`) : path.join(BUILD_DIR, 'bench', `${script}.js`);
  // BENCH_NODE_ARGS: extra node flags for the children (e.g. --trace-gc).
  const nodeArgs = [...serviceFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const proc = fork(file, [], { execArgv: [...(tsx ? ['--import', 'tsx'] : []), ...nodeArgs], env: { ...process.env, ...env }, stdio: 'inherit' });
  // Each message the parent sends gets exactly one answer, in order; a child that exits instead fails the bench.
  const ask = <T>(message: string) =>
    new Promise<T>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`${script} exited ${code} before answering '${message}'`));
      proc.once('exit', exited);
      proc.once('message', (m) => {
        proc.off('exit', exited);
        resolve(m as T);
      });
      proc.send(message);
    });
  const ready = await new Promise((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
  return { proc, ask, ready };
}

/** Several auction processes as one service: every message to each, the answers merged (CPU summed, the worst delay, all pauses and profiles). */
function together(children: (Child & { ready: any })[]): Child & { ready: any } {
  const ask = async <T>(message: string): Promise<T> => {
    const answers = await Promise.all(children.map((c) => c.ask<any>(message)));
    if (message === 'cpu') {
      const cpu = { user: 0, system: 0 };
      for (const a of answers) {
        cpu.user += a.cpu.user;
        cpu.system += a.cpu.system;
      }
      return { cpu, loopP99Ms: Math.max(...answers.map((a) => a.loopP99Ms)), loopMaxMs: Math.max(...answers.map((a) => a.loopMaxMs)) } as T;
    }
    if (message === 'gc') return { gc: answers.flatMap((a) => a.gc) } as T;
    if (message === 'profile-stop') return { profile: answers.map((a) => a.profile).join(' ') } as T;
    return answers[0] as T;
  };
  return { proc: children[0].proc, ask, ready: { ...children[0].ready, ports: children.map((c) => c.ready.port) } };
}

async function stop(c: Child) {
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.send('stop');
  await exited;
}

/** What a service is sent: the request (path, headers, a body per request id), and the DSPs that report how long they held each. */
interface Requests {
  dsps: Child;
  pathName: string;
  headers: Record<string, string>;
  makeBody: (id: string) => string;
}

async function step(pool: Pool, { dsps, pathName, headers, makeBody }: Requests, rate: number): Promise<StepResult> {
  const answered: [id: string, ms: number, sentAt: number][] = [];
  let errors = 0;
  const total = Math.round(rate * STEP_SECONDS);
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const id = randomUUID();
    const sent = performance.now();
    inflight.push(
      pool.request({ path: pathName, method: 'POST', headers, body: makeBody(id) }).then(
        async (res) => {
          await res.body.text();
          const ms = performance.now() - sent;
          if (res.statusCode !== 200) {
            errors += 1;
            return;
          }
          answered.push([id, ms, performance.timeOrigin + sent]);
        },
        () => {
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - started) / 1000;
  // Every DSP answer was written before its auction answered: the DSPs know all holds by now.
  const holds = new Map((await dsps.ask<{ holds: [string, number][] }>('holds')).holds);
  const latencies = answered.map(([, ms]) => ms).sort((a, b) => a - b);
  const overheads = answered.map(([id, ms]) => ms - (holds.get(id) ?? 0)).sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  // The slowest 2% by overhead, and every request: which of them a GC pause overlapped (BENCH_GC_TRACE).
  const cut = percentile(overheads, 98);
  const slowest = !GC_TRACE ? undefined : answered.filter(([id, ms]) => ms - (holds.get(id) ?? 0) >= cut).map(([, ms, at]) => [at, ms] as [number, number]);
  return {
    rate,
    achieved: round(total / elapsed),
    ok: errors === 0 && p99 < 50 && total / elapsed >= rate * 0.95,
    slowest,
    all: GC_TRACE ? answered.map(([, ms, at]) => [at, ms] as [number, number]) : undefined,
    p50: round(percentile(latencies, 50)),
    p99: round(p99),
    overheadP50: round(percentile(overheads, 50)),
    overheadP99: round(percentile(overheads, 99)),
    errors,
  };
}

const cpuOf = async (c: Child) => {
  const { cpu, loopP99Ms, loopMaxMs } = await c.ask<{ cpu: NodeJS.CpuUsage; loopP99Ms: number; loopMaxMs: number }>('cpu');
  return { ms: (cpu.user + cpu.system) / 1000, loopP99Ms, loopMaxMs };
};

/** BENCH_GC_TRACE: how many of the step's slowest 2% (and of all its requests) a GC pause of each process overlapped. */
async function printGcOverlap(label: string, r: StepResult, service: Child, dsps: Child) {
  const pauses = {
    service: (await service.ask<{ gc: GcPause[] }>('gc')).gc,
    dsps: (await dsps.ask<{ gc: GcPause[] }>('gc')).gc,
    generator: generatorGcs.take(),
  };
  const share = (rs: [number, number][], p: GcPause[]) => `${((100 * overlapping(rs, p)) / rs.length).toFixed(0)}%`;
  console.log(
    `${label.padEnd(8)} GC pauses overlapping the slowest 2% (all requests): ` +
      Object.entries(pauses)
        .map(
          ([who, p]) =>
            `${who} ${p.length} pauses (${p.reduce((t, [, d]) => t + d, 0).toFixed(0)} ms, longest ${Math.max(0, ...p.map(([, d]) => d)).toFixed(1)}) ${share(r.slowest!, p)} (${share(r.all!, p)})`,
        )
        .join(', '),
  );
}

/** One step with the service's and the DSPs' CPU measured around it (`between`: what to read before the CPU after). */
async function measuredStep(service: Child, pool: Pool, requests: Requests, rate: number, between: (r: StepResult) => Promise<void> = () => Promise.resolve()) {
  const { dsps } = requests;
  const before = await cpuOf(service);
  const dspBefore = await cpuOf(dsps);
  const r = await step(pool, requests, rate);
  await between(r);
  const sent = Math.round(rate * STEP_SECONDS);
  const after = await cpuOf(service);
  const dspAfter = await cpuOf(dsps);
  const measured = Object.assign(r, { cpuMsPerRequest: (after.ms - before.ms) / sent });
  return { r: measured, after, dspAfter, dspCpu: round((dspAfter.ms - dspBefore.ms) / sent) };
}

/** A service's ports: one process's, or every process's of several run as one (`together`). */
const portsOf = (service: Child & { ready: { port: number; ports?: number[] } }): number[] => service.ready.ports ?? [service.ready.port];

async function ramp(label: string, service: Child & { ready: { port: number } }, requests: Requests) {
  const { dsps } = requests;
  const pool = loopbackPool(portsOf(service), { connections: 256, keepAliveTimeout: 30_000 });
  // Warm-up: JIT, connection pools, the index.
  await step(pool, requests, 100);
  await step(pool, requests, 300);
  const results: StepResult[] = [];
  const { profiling } = await service.ask<{ profiling?: boolean }>('profile-start');
  for (const rate of RATES) {
    if (GC_TRACE) await Promise.all([service.ask('gc'), dsps.ask('gc')]).then(() => generatorGcs.take());
    const { r, after, dspAfter, dspCpu } = await measuredStep(service, pool, requests, rate, (stepResult) =>
      GC_TRACE ? printGcOverlap(label, stepResult, service, dsps) : Promise.resolve(),
    );
    results.push(r);
    console.log(
      `${label.padEnd(8)} rate=${rate}/s achieved=${r.achieved}/s p50=${r.p50}ms p99=${r.p99}ms overhead p50=${r.overheadP50}ms p99=${r.overheadP99}ms` +
        ` cpu=${round(r.cpuMsPerRequest)}ms/req event-loop delay p99=${round(after.loopP99Ms)}ms max=${round(after.loopMaxMs)}ms` +
        ` (dsps cpu=${dspCpu}ms/req delay p99=${round(dspAfter.loopP99Ms)}ms) errors=${r.errors}${r.ok ? '' : '  (not sustained)'}`,
    );
    if (!r.ok) break;
  }
  if (profiling) console.log(`${label.padEnd(8)} cpu profile of the steps: ${(await service.ask<{ profile: string }>('profile-stop')).profile}`);
  await pool.close();
  return results;
}

/**
 * The machine's speed drifts over the minutes between the two ramps (one run's cpu_ratio moved
 * for the same code: bench/history.md). So, after both, PAIRS pairs of back-to-back steps at
 * PAIRED_RATE, the auction's then the floor's, each pair's ratio taken, and their median. The
 * auction is stopped (SIGSTOP) while the floor runs, as it was during the floor's ramp, so that
 * its timers take nothing from the floor's steps.
 */
async function pairedCpuRatios(
  auction: { service: Child & { ready: { port: number } }; procs: ChildProcess[]; requests: Requests },
  floor: { service: Child & { ready: { port: number } }; requests: Requests },
): Promise<number[]> {
  const pools = { auction: loopbackPool(portsOf(auction.service), { connections: 256 }), floor: loopbackPool(portsOf(floor.service), { connections: 256 }) };
  const ratios: number[] = [];
  try {
    for (let i = 0; i < PAIRS; i += 1) {
      for (const p of auction.procs) p.kill('SIGCONT');
      // Unmeasured: the timers that came due while it was stopped, and its DSP connections that
      // the DSPs closed meanwhile would otherwise land in the first pair's tail.
      await step(pools.auction, auction.requests, 300);
      const a = await measuredStep(auction.service, pools.auction, auction.requests, PAIRED_RATE);
      for (const p of auction.procs) p.kill('SIGSTOP');
      const f = await measuredStep(floor.service, pools.floor, floor.requests, PAIRED_RATE);
      const ratio = a.r.cpuMsPerRequest / f.r.cpuMsPerRequest;
      const counted = a.r.errors === 0 && f.r.errors === 0;
      if (counted) ratios.push(ratio);
      console.log(
        `pair ${i + 1}   ${PAIRED_RATE}/s auction cpu=${round(a.r.cpuMsPerRequest)}ms/req overhead p99=${a.r.overheadP99}ms, floor cpu=${round(f.r.cpuMsPerRequest)}ms/req overhead p99=${f.r.overheadP99}ms: ratio ${round(ratio)}${counted ? '' : ' (errors: not counted)'}`,
      );
    }
  } finally {
    for (const p of auction.procs) p.kill('SIGCONT');
    await Promise.all([pools.auction.close(), pools.floor.close()]);
  }
  return ratios;
}

/** The goal's "overhead p99 under 5 ms at every step up to 1,000/s": the worst of those steps (a step not reached is not in it). */
const worstOverheadP99 = (rs: StepResult[]) => {
  const steps = rs.filter((r) => r.rate <= 1000);
  return steps.length > 0 ? Math.max(...steps.map((r) => r.overheadP99)) : NaN;
};

/**
 * CPU per auction against the floor's, over every rate both sustained: the CPU of those steps summed on each
 * side (they served the same requests), so that no one noisy step decides it.
 */
function cpuRatio(service: StepResult[], floor: StepResult[]): number {
  let serviceMs = 0;
  let floorMs = 0;
  for (const s of service.filter((r) => r.ok)) {
    const f = floor.find((r) => r.rate === s.rate && r.ok);
    if (!f) continue;
    serviceMs += s.cpuMsPerRequest! * s.rate;
    floorMs += f.cpuMsPerRequest! * f.rate;
  }
  return floorMs > 0 ? round(serviceMs / floorMs) : NaN;
}

/** The bench's line: the auction's best sustained rate, its overhead at TARGET_RPS (or its best rate), the floor's, and the goal's other figures. */
function lastLine(auctionResults: StepResult[], floorResults: StepResult[], controlsCostMs: number, pairedRatios: number[]): string {
  const best = (rs: StepResult[]) => rs.filter((r) => r.ok).pop();
  const a = best(auctionResults);
  const f = best(floorResults);
  const at = auctionResults.find((r) => r.rate === TARGET_RPS && r.ok) ?? a;
  const floorAt = floorResults.find((r) => r.rate === (at?.rate ?? 0)) ?? f;
  return (
    `auction rps=${a?.rate ?? 0} overhead_p50_ms=${at?.overheadP50 ?? 'NaN'} overhead_p99_ms=${at?.overheadP99 ?? 'NaN'} at_rps=${at?.rate ?? 0} floor_rps=${f?.rate ?? 0} floor_overhead_p99_ms=${floorAt?.overheadP99 ?? 'NaN'} controls_cpu_p50_ms=${controlsCostMs.toFixed(4)}` +
    ` worst_overhead_p99_ms=${worstOverheadP99(auctionResults)} floor_worst_overhead_p99_ms=${worstOverheadP99(floorResults)} cpu_ratio=${cpuRatio(auctionResults, floorResults)}` +
    ` cpu_ratio_paired=${
      pairedRatios.length > 0
        ? round(
            percentile(
              [...pairedRatios].sort((x, y) => x - y),
              50,
            ),
          )
        : NaN
    } fresh_conversations=${FRESH_CONVERSATIONS ? 1 : 0}`
  );
}

// Users come back (5,000 of them), each request in a conversation of its own: frequency caps apply as in service.
function adRequestBody(): (id: string) => string {
  let sent = 0;
  return (id: string) =>
    JSON.stringify({
      userId: `bench-user-${(sent += 1) % 5000}`,
      chatId: `bench-chat-${sent}`,
      request_id: id,
      country_code: 'AQ',
      device: 'mobile',
      timezone: 'UTC',
      ip: '203.0.113.5',
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      // A conversation no request has had (the goal of issue 45), unless BENCH_FRESH_CONVERSATIONS=0.
      messages: FRESH_CONVERSATIONS
        ? freshConversation(sent)
        : [
            { role: 'user', content: 'Which running shoes for a marathon?' },
            { role: 'assistant', content: 'Cushioned trainers help.' },
          ],
    });
}

async function main() {
  if (process.env.BENCH_TSX !== '1') await compileChildren();
  const db = createDb(undefined, 2);
  const dsps = await child('auction-dsps');
  const dspUrls: string[] = dsps.ready.urls;
  const publisher = await createPublisher(db, { name: `bench ${Date.now()}` });
  const dspIds: string[] = [];
  for (const url of dspUrls) {
    const { dsp_id } = await addDsp(db, {
      name: `bench-${randomUUID().slice(0, 8)}`,
      protocol: 'native',
      bidUrl: `${url}/native/bid`,
      renderUrl: `${url}/native/render`,
      key: 'bench',
    });
    dspIds.push(dsp_id);
  }
  const body = adRequestBody();

  try {
    const auctions = [];
    for (let i = 0; i < AUCTION_PROCESSES; i += 1)
      auctions.push(
        await child(
          'auction-server',
          { BENCH_DSP_IDS: dspIds.join(','), AUCTION_LOG_FLUSH_MS: '1000', AUCTION_PUBLISHER_RATE_LIMIT: '100000' },
          SERVICE_NODE_FLAGS.auction,
        ),
      );
    const auction = auctions.length === 1 ? auctions[0] : together(auctions);
    const auctionRequests: Requests = {
      dsps,
      pathName: '/v1/ad_requests',
      headers: { authorization: `Bearer ${publisher.publisher_key}`, 'content-type': 'application/json' },
      makeBody: body,
    };
    const auctionResults = await ramp('auction', auction, auctionRequests);
    // What the auctions did (a bench that measured skipped DSP calls would measure nothing).
    const metrics = await (await fetch(auction.ready.metricsUrl as string)).text();
    console.log(
      metrics
        .split('\n')
        .filter((l) => /^auction_(requests|bids|non_bids|dsp_timeouts|dsp_errors)_total\{/.test(l))
        .map((l) => `auction  ${l}`)
        .join('\n'),
    );
    // The service's own view: its overhead histogram (from taking the request to answering it, minus its slowest
    // DSP call). The gap to the generator's overhead is time outside the handler: GC pauses while calls were open, scheduling.
    const buckets = [...metrics.matchAll(/^auction_overhead_ms_bucket\{le="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])] as const);
    const total = buckets.at(-1)?.[1] ?? 0;
    console.log(`auction  in-service overhead of all steps (its histogram): p99 <= ${buckets.find(([, n]) => n >= total * 0.99)?.[0]} ms`);
    // Kept for the paired steps, stopped (SIGSTOP) while the floor runs: its timers take nothing from the floor's steps.
    for (const a of auctions) a.proc.kill('SIGSTOP');

    const floor = await child('auction-floor', { FLOOR_DSPS: dspUrls.map((u) => `${u}/native/bid`).join(',') });
    const floorRequests: Requests = { dsps, pathName: '/', headers: { 'content-type': 'application/json' }, makeBody: body };
    const floorResults = await ramp('floor', floor, floorRequests);
    const pairedRatios = await pairedCpuRatios(
      { service: auction, procs: auctions.map((a) => a.proc), requests: auctionRequests },
      { service: floor, requests: floorRequests },
    );
    for (const a of auctions) await stop(a);
    await stop(floor);

    // What pacing and frequency caps cost the in-house bidder per auction, in this process over the same index.
    const controls = await controlsCostMs(db);
    console.log(
      `controls in-house bidder over ${controls.ads} ads, p50 per auction: ${round(controls.withoutMs)} ms without, ${round(controls.withMs)} ms with pacing and caps (+${controls.costMs.toFixed(4)} ms)`,
    );

    console.log(lastLine(auctionResults, floorResults, controls.costMs, pairedRatios));
  } finally {
    await db.dsp.updateMany({ where: { id: { in: dspIds } }, data: { enabled: false } });
    await db.publisher.updateMany({ where: { publicId: publisher.publisher_id }, data: { enabled: false } });
    await stop(dsps);
    await db.$disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
