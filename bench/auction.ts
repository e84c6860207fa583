/**
 * bench:auction: the auction service under load, against three reference DSPs
 * on loopback (10 ms simulated latency), and in the same run the same load
 * through a bare fan-out floor (bench/auction-floor.ts). Open-loop load at
 * rising rates (each step BENCH_STEP_SECONDS long); a rate is sustained when
 * every request answered 200 and p99 < 50 ms.
 *
 * overhead = end-to-end latency minus the slowest DSP's answer time for that
 * request (each reference DSP records, by request_id, how long it held it).
 *
 *   npm run bench:auction        (BENCH_RATES=100,200,... BENCH_STEP_SECONDS=3)
 *
 * Last line: auction rps=... overhead_p50_ms=... overhead_p99_ms=... at_rps=... floor_rps=... floor_overhead_p99_ms=...
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { createDb } from '../lib/db';
import { createPublisher } from '../domain/publishers';
import { addDsp } from '../domain/dsps';
import { startReferenceDsp, type ReferenceDsp } from '../dev/reference-dsp/server';

const RATES = (process.env.BENCH_RATES ?? '100,200,300,400,500,600,800,1000,1200,1500').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 3);
const TARGET_RPS = 500;

interface StepResult { cpuMsPerRequest?: number; rate: number; achieved: number; ok: boolean; p50: number; p99: number; overheadP50: number; overheadP99: number; errors: number }

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const round = (n: number) => Math.round(n * 100) / 100;

/** DSP hold time per request_id, the max over the three DSPs. */
const dspHold = new Map<string, number>();

async function startDsps(): Promise<ReferenceDsp[]> {
  const dsps: ReferenceDsp[] = [];
  for (const price of [1.1, 1.7, 2.3]) {
    dsps.push(await startReferenceDsp({ latencyMs: 10, price, key: null }));
  }
  return dsps;
}

function child(script: string, env: Record<string, string>): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(path.join(__dirname, script), [], { execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])], env: { ...process.env, ...env }, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    proc.once('message', (m: any) => resolve({ proc, port: m.port }));
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

async function stop(proc: ChildProcess) {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.send('stop');
  await exited;
}

async function step(pool: Pool, pathName: string, headers: Record<string, string>, makeBody: (id: string) => string, rate: number): Promise<StepResult> {
  const latencies: number[] = [];
  const overheads: number[] = [];
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
    inflight.push(pool.request({ path: pathName, method: 'POST', headers, body: makeBody(id) }).then(async (res) => {
      await res.body.text();
      const ms = performance.now() - sent;
      if (res.statusCode !== 200) { errors += 1; return; }
      latencies.push(ms);
      overheads.push(ms - (dspHold.get(id) ?? 0));
      dspHold.delete(id);
    }, () => { errors += 1; }));
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  overheads.sort((a, b) => a - b);
  const p99 = pct(latencies, 99);
  return {
    rate, achieved: round(total / elapsed), ok: errors === 0 && p99 < 50 && total / elapsed >= rate * 0.95,
    p50: round(pct(latencies, 50)), p99: round(p99), overheadP50: round(pct(overheads, 50)), overheadP99: round(pct(overheads, 99)), errors,
  };
}

function cpuOf(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    proc.once('message', (m: any) => resolve((m.cpu.user + m.cpu.system) / 1000));
    proc.send('cpu');
  });
}

async function ramp(label: string, proc: ChildProcess, port: number, pathName: string, headers: Record<string, string>, makeBody: (id: string) => string) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 256, keepAliveTimeout: 30_000 });
  // Warm-up: JIT, connection pools, the index.
  await step(pool, pathName, headers, makeBody, 100);
  const results: StepResult[] = [];
  for (const rate of RATES) {
    const cpuBefore = await cpuOf(proc);
    const r = await step(pool, pathName, headers, makeBody, rate);
    r.cpuMsPerRequest = round(((await cpuOf(proc)) - cpuBefore) / Math.round(rate * STEP_SECONDS));
    results.push(r);
    console.log(`${label.padEnd(8)} rate=${rate}/s achieved=${r.achieved}/s p50=${r.p50}ms p99=${r.p99}ms overhead p50=${r.overheadP50}ms p99=${r.overheadP99}ms cpu=${r.cpuMsPerRequest}ms/req errors=${r.errors}${r.ok ? '' : '  (not sustained)'}`);
    if (!r.ok) break;
  }
  await pool.close();
  return results;
}

async function main() {
  const db = createDb(undefined, 2);
  const dsps = await startDsps();
  // Each DSP holds a request for its simulated latency (its own work is negligible): record, per
  // request_id, the slowest DSP's answer time, which overhead subtracts.
  for (const dsp of dsps) {
    const previous = dsp.options.respond;
    dsp.set({
      respond: (p, body) => {
        const id = body?.request_id as string | undefined;
        if (id) dspHold.set(id, Math.max(dspHold.get(id) ?? 0, dsp.options.latencyMs));
        return previous?.(p, body);
      },
    });
  }
  const publisher = await createPublisher(db, { name: `bench ${Date.now()}` });
  const dspIds: string[] = [];
  for (const dsp of dsps) {
    const { dsp_id } = await addDsp(db, { name: `bench-${randomUUID().slice(0, 8)}`, protocol: 'native', bidUrl: `${dsp.url}/native/bid`, renderUrl: `${dsp.url}/native/render`, key: 'bench' });
    dspIds.push(dsp_id);
  }
  const body = (id: string) => JSON.stringify({
    userId: 'bench-user', chatId: 'bench-chat', request_id: id, country_code: 'AQ', device: 'mobile', timezone: 'UTC', ip: '203.0.113.5', user_agent: 'bench',
    messages: [{ role: 'user', content: 'Which running shoes for a marathon?' }, { role: 'assistant', content: 'Cushioned trainers help.' }],
  });

  try {
    const auction = await child('auction-server.ts', { BENCH_DSP_IDS: dspIds.join(','), AUCTION_LOG_FLUSH_MS: '1000' });
    const auctionResults = await ramp('auction', auction.proc, auction.port, '/v1/ad_requests', { authorization: `Bearer ${publisher.publisher_key}`, 'content-type': 'application/json' }, body);
    await stop(auction.proc);

    const floor = await child('auction-floor.ts', { FLOOR_DSPS: dsps.map((d) => `${d.url}/native/bid`).join(',') });
    const floorResults = await ramp('floor', floor.proc, floor.port, '/', { 'content-type': 'application/json' }, body);
    await stop(floor.proc);

    const best = (rs: StepResult[]) => rs.filter((r) => r.ok).pop();
    const a = best(auctionResults);
    const f = best(floorResults);
    const at = auctionResults.find((r) => r.rate === TARGET_RPS && r.ok) ?? a;
    const floorAt = floorResults.find((r) => r.rate === (at?.rate ?? 0)) ?? f;
    console.log(`auction rps=${a?.rate ?? 0} overhead_p50_ms=${at?.overheadP50 ?? 'NaN'} overhead_p99_ms=${at?.overheadP99 ?? 'NaN'} at_rps=${at?.rate ?? 0} floor_rps=${f?.rate ?? 0} floor_overhead_p99_ms=${floorAt?.overheadP99 ?? 'NaN'}`);
  } finally {
    await db.dsp.updateMany({ where: { id: { in: dspIds } }, data: { enabled: false } });
    await db.publisher.updateMany({ where: { publicId: publisher.publisher_id }, data: { enabled: false } });
    for (const dsp of dsps) await dsp.close();
    await db.$disconnect();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
