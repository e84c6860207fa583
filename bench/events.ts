/**
 * Event collection throughput and latency with durable storage, and the
 * pipeline's lag to ClickHouse; in the same run a bare floor (a minimal Node
 * HTTP server answering 204 to the same load) for scale.
 *
 * The api and the worker run as their own processes (api/server.ts, worker/main.ts)
 * over the real PostgreSQL, Temporal and ClickHouse. The load is closed-loop:
 * BENCH_CONCURRENCY requests in flight (default 128) for BENCH_SECONDS (default 10),
 * one event per request (the single form). While it runs, a probe event every
 * 200 ms is timed from its 204 to its row in ClickHouse (the lag).
 *
 *   npm run bench:events
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 128);
const warmupSeconds = 2;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

interface LoadResult { accepted: number; failed: number; perSecond: number; latencies: number[] }

/** Closed-loop load: `concurrency` keep-alive clients POSTing `body()` for `durationS` after a warm-up. */
async function load(
  port: number, path: string, headers: Record<string, string>, body: () => string, durationS: number, onMeasureStart = () => {},
): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const send = () => new Promise<number>((resolve, reject) => {
    const payload = body();
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
  const latencies: number[] = [];
  let accepted = 0;
  let failed = 0;
  const warmupEnd = performance.now() + warmupSeconds * 1000;
  const end = warmupEnd + durationS * 1000;
  const measuring = setTimeout(onMeasureStart, warmupSeconds * 1000);
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const status = await send().catch(() => 0);
      const finished = performance.now();
      if (started < warmupEnd) continue;
      if (status === 204) { accepted += 1; latencies.push(finished - started); } else failed += 1;
    }
  }));
  clearTimeout(measuring);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { accepted, failed, perSecond: accepted / durationS, latencies };
}

/**
 * CPU seconds (user + system) used so far by a process and its descendants
 * (Linux /proc; 0 elsewhere): the api's CPU per accepted event is a figure the
 * other load on a shared machine does not move much, unlike throughput.
 */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) ticks += cpuSeconds(Number(child)) * 100;
    }
    return ticks / 100; // USER_HZ
  } catch {
    return 0;
  }
}

/** The floor: a bare Node HTTP server in its own process that reads the body and answers 204. */
async function startFloor(): Promise<{ port: number; stop(): void }> {
  const script = `require('http').createServer((req, res) => { req.resume(); req.on('end', () => { res.statusCode = 204; res.end(); }); })
    .listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => { const m = /port (\d+)/.exec(d.toString()); if (m) resolve(Number(m[1])); });
  });
  return { port, stop: () => child.kill('SIGKILL') };
}

async function main() {
  // Loaded after the stack has set the task queue in the environment.
  const { startLocalStack } = await import('../dev/local-stack');
  const stack = await startLocalStack('bench-events'); // its worker starts the event pipeline
  const { startApiProcess } = await import('../dev/processes');
  const { createDb } = await import('../lib/db');
  const { createOrganization } = await import('../domain/organizations/service');
  const { createClickhouse } = await import('../lib/clickhouse/client');
  const { sql } = await import('../lib/clickhouse/sql');

  const db = createDb();
  const clickhouse = createClickhouse();
  // BENCH_PROFILE_DIR=dir: the api process writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const api = await startApiProcess({ RATE_LIMIT_EVENTS_PER_HOUR: String(1_000_000_000) }, profile);
  const org = await createOrganization(db, { name: `bench events ${Date.now()}`, domain: 'bench.example', withAdAccount: true });
  const orgId = (await db.organization.findFirstOrThrow({ where: { publicId: org.org_public_id } })).id;
  const headers = { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' };
  let n = 0;
  const event = () => JSON.stringify({
    event_name: 'purchase', event_id: `bench-${n++}`, page_url: 'https://shop.example.com/checkout',
    user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    params: { value: 19.99, currency: 'USD' },
  });

  // Lag probes: acknowledged at t, found in ClickHouse at t + lag.
  const pending = new Map<string, number>();
  const lags: number[] = [];
  let probing = true;
  const prober = (async () => {
    let i = 0;
    while (probing) {
      const name = `probe-${i++}`;
      const res = await fetch(`${api.url}/api/collect`, { method: 'POST', headers, body: JSON.stringify({ event_name: name }) });
      if (res.status === 204) pending.set(name, performance.now());
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const watcher = (async () => {
    while (probing || pending.size > 0) {
      if (pending.size > 0) {
        const result = await clickhouse.query({
          query: `SELECT event_name FROM collected_events WHERE ${sql`organization_id = ${orgId} AND has(${[...pending.keys()]}, event_name)`}`,
          format: 'JSONEachRow',
        });
        const now = performance.now();
        for (const { event_name } of await result.json<{ event_name: string }>()) {
          lags.push((now - pending.get(event_name)!) / 1000);
          pending.delete(event_name);
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();

  // The api's CPU over the measured seconds only: the warm-up pays one-time costs (JIT, first queries).
  let cpuBefore = 0;
  const durable = await load(api.port, '/api/collect', headers, event, seconds, () => { cpuBefore = cpuSeconds(api.child.pid!); });
  const apiCpuMsPerEvent = ((cpuSeconds(api.child.pid!) - cpuBefore) * 1000) / (durable.accepted + durable.failed);
  probing = false;
  await prober;
  await watcher;
  lags.sort((a, b) => a - b);

  const floorServer = await startFloor();
  const floor = await load(floorServer.port, '/api/collect', headers, event, seconds);
  floorServer.stop();

  const p = (q: number) => pct(durable.latencies, q).toFixed(1);
  console.log(`/api/collect, durable (PostgreSQL group commit), concurrency ${concurrency}, ${seconds} s after ${warmupSeconds} s warm-up:`);
  console.log(`  accepted ${durable.accepted} (${durable.perSecond.toFixed(0)}/s), failed ${durable.failed}; latency p50 ${p(50)} ms  p95 ${p(95)} ms  p99 ${p(99)} ms  max ${p(100)} ms`);
  console.log(`  api process CPU: ${apiCpuMsPerEvent.toFixed(3)} ms per request (user + system, measured seconds only)`);
  console.log(`pipeline lag (204 -> row in ClickHouse), ${lags.length} probes: p50 ${pct(lags, 50).toFixed(2)} s  p99 ${pct(lags, 99).toFixed(2)} s  max ${lags[lags.length - 1].toFixed(2)} s`);
  console.log(`bare floor (Node http, 204): ${floor.perSecond.toFixed(0)}/s, p99 ${pct(floor.latencies, 99).toFixed(1)} ms`);
  console.log(`events accepted_per_s=${durable.perSecond.toFixed(0)} p99_ms=${pct(durable.latencies, 99).toFixed(1)} lag_p99_s=${pct(lags, 99).toFixed(2)} floor_per_s=${floor.perSecond.toFixed(0)}`);

  await api.stop();
  await stack.stop();
  await clickhouse.close();
  await db.$disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
