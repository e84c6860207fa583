/**
 * Event collection throughput and latency with durable storage, and the
 * pipeline's lag to ClickHouse; in the same run a bare floor (a minimal Node
 * HTTP server answering 204 to the same load) for scale.
 *
 * The api and the worker run as their own processes (api/server.ts, worker/main.ts)
 * over the real PostgreSQL, Temporal and ClickHouse. The load is open-loop, one
 * event per request (the single form), after 3 s of unmeasured load at the first
 * rate (a just-started api warms up), in steps at rising rates (BENCH_RATES;
 * each BENCH_SECONDS long, default 5, after a 1 s warm-up) until a step is not
 * sustained (a failure, or p99 of 50 ms or more); accepted_per_s is the highest
 * rate sustained with every step below it, p99_ms its p99, floor_per_s the floor's highest. While the
 * api is loaded, a probe event every 200 ms is timed from its 204 to its row
 * in ClickHouse (the lag). Beside each of the api's steps, CONTROL_RATE requests a
 * second go from the same load generator to a bare server (the floor in the same
 * steps); floor_beside_worst_p99_ms is its highest p99 in the steps up to 5,000/s:
 * what the machine and the generator put into a tail under the api's load.
 * BENCH_API_PROCESSES=2 runs that many api processes and spreads the load over
 * them (their CPU summed).
 *
 *   npm run bench:events
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CONTROL_RATE, percentile, sustainedRate, worstControlP99, type ControlStream } from './support/load';
import { startBareFloor } from './support/bare-floor';
import { processCpuSeconds } from './support/machine-cpu';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rates = (process.env.BENCH_RATES ?? '2000,3000,4000,5000,6000,7000,8000,10000,12000,14000,16000').split(',').map(Number);
const warmupSeconds = 1;
const P99_LIMIT_MS = 50;
const API_PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 1);

/** The goal's rate: the floor beside the steps up to it is reported. */
const GOAL_RATE = 5_000;

/** Open-loop steps at rising rates until one is not sustained (bench/support/load.ts), with a control stream beside them if given. */
function load(
  port: number | number[],
  headers: Record<string, string>,
  body: () => string,
  label: string,
  { onStepStart = () => {}, control }: { onStepStart?: () => void; control?: ControlStream } = {},
) {
  console.log(
    `${label}, open loop, ${seconds} s a step after ${warmupSeconds} s warm-up${control ? `; beside each step ${control.rate}/s to a bare floor server` : ''}:`,
  );
  return sustainedRate({
    port,
    rates,
    durationS: seconds,
    warmupS: warmupSeconds,
    p99LimitMs: P99_LIMIT_MS,
    serverWarmupS: 3,
    next: () => {
      onStepStart();
      return { method: 'POST', path: '/api/collect', headers, body: body() };
    },
    ok: (status) => status === 204,
    control,
    onStep: (s) =>
      console.log(
        `  ${s.rate}/s offered: ${s.ok} accepted, failed ${s.failed}; p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms${s.sustained ? '' : '  (not sustained)'}` +
          `${s.control ? `; floor beside it p50 ${s.control.p50.toFixed(1)} ms  p99 ${s.control.p99.toFixed(1)} ms` : ''}\n    ${s.machineCpu}`,
      ),
  });
}

/**
 * CPU seconds (user + system) used so far by a process and its descendants
 * (Linux /proc; 0 elsewhere): the api's CPU per accepted event is a figure the
 * other load on a shared machine does not move much, unlike throughput.
 */
function cpuSeconds(pid: number): number {
  try {
    let seconds = processCpuSeconds(pid);
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) seconds += cpuSeconds(Number(child));
    }
    return seconds;
  } catch {
    return 0;
  }
}

/** Which of `names` the organization's events in ClickHouse already hold. */
async function storedNames(clickhouse: import('@clickhouse/client').ClickHouseClient, orgId: string, names: string[]): Promise<string[]> {
  const { sql } = await import('../lib/clickhouse/sql');
  const result = await clickhouse.query({
    query: `SELECT event_name FROM collected_events WHERE ${sql`organization_id = ${orgId} AND has(${names}, event_name)`}`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ event_name: string }>()).map((r) => r.event_name);
}

/** Lag probes: an event every 200 ms, acknowledged at t and found in ClickHouse at t + lag; stop() gives the lags (s), sorted. */
function startLagProbe(apiUrl: string, headers: Record<string, string>, stored: (names: string[]) => Promise<string[]>) {
  const pending = new Map<string, number>();
  const lags: number[] = [];
  let probing = true;
  const prober = (async () => {
    for (let i = 0; probing; i += 1) {
      const name = `probe-${i}`;
      const res = await fetch(`${apiUrl}/api/collect`, { method: 'POST', headers, body: JSON.stringify({ event_name: name }) });
      if (res.status === 204) pending.set(name, performance.now());
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const watcher = (async () => {
    while (probing || pending.size > 0) {
      if (pending.size > 0) {
        const found = await stored([...pending.keys()]);
        const now = performance.now();
        for (const name of found) {
          lags.push((now - pending.get(name)!) / 1000);
          pending.delete(name);
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop(): Promise<number[]> {
      probing = false;
      await prober;
      await watcher;
      return lags.sort((a, b) => a - b);
    },
  };
}

async function main() {
  // Loaded after the stack has set the task queue in the environment.
  const { startLocalStack } = await import('../dev/local-stack');
  const stack = await startLocalStack('bench-events'); // its worker starts the event pipeline
  const { startApiProcess } = await import('../dev/processes');
  const { createDb } = await import('../lib/db');
  const { createOrganization } = await import('../domain/organizations/service');
  const { createClickhouse } = await import('../lib/clickhouse/client');

  const db = createDb();
  const clickhouse = createClickhouse();
  // BENCH_PROFILE_DIR=dir: the api process writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const apis = await Promise.all(Array.from({ length: API_PROCESSES }, () => startApiProcess({ RATE_LIMIT_EVENTS_PER_HOUR: String(1_000_000_000) }, profile)));
  const api = apis[0];
  const apiCpuSeconds = () => apis.reduce((sum, a) => sum + cpuSeconds(a.child.pid!), 0);
  const org = await createOrganization(db, { name: `bench events ${Date.now()}`, domain: 'bench.example', withAdAccount: true });
  const orgId = (await db.organization.findFirstOrThrow({ where: { publicId: org.org_public_id } })).id;
  const headers = { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' };
  let n = 0;
  const event = () =>
    JSON.stringify({
      event_name: 'purchase',
      event_id: `bench-${n++}`,
      page_url: 'https://shop.example.com/checkout',
      user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      params: { value: 19.99, currency: 'USD' },
    });

  const probe = startLagProbe(api.url, headers, (names) => storedNames(clickhouse, orgId, names));

  // The api's CPU per request over the whole stepped run (every request sent counts, warm-ups too).
  let sent = 0;
  const cpuBefore = apiCpuSeconds();
  const label = `/api/collect, durable (PostgreSQL group commit), ${API_PROCESSES} api process${API_PROCESSES > 1 ? 'es' : ''}`;
  const beside = await startBareFloor(204);
  const durable = await load(
    apis.map((a) => a.port),
    headers,
    event,
    label,
    {
      onStepStart: () => {
        sent += 1;
      },
      control: {
        port: beside.port,
        rate: CONTROL_RATE,
        next: () => ({ method: 'POST', path: '/api/collect', headers, body: event() }),
        ok: (status) => status === 204,
      },
    },
  );
  beside.stop();
  const apiCpuMsPerEvent = ((apiCpuSeconds() - cpuBefore) * 1000) / sent;
  const lags = await probe.stop();

  const floorServer = await startBareFloor(204);
  const floor = await load(floorServer.port, headers, event, 'bare floor (Node http, 204)');
  floorServer.stop();

  // The highest rate sustained with p99 under the bound (if none, the lowest step, as measured).
  const reported = durable.best ?? durable.steps[0];
  const floorRate = floor.best?.perSecond ?? 0;
  const besideWorst = worstControlP99(durable.steps, GOAL_RATE);
  console.log(`api CPU: ${apiCpuMsPerEvent.toFixed(3)} ms per request (user + system, all api processes)`);
  console.log(
    `pipeline lag (204 -> row in ClickHouse), ${lags.length} probes: p50 ${percentile(lags, 50).toFixed(2)} s  p99 ${percentile(lags, 99).toFixed(2)} s  max ${lags[lags.length - 1].toFixed(2)} s`,
  );
  if (floor.best === floor.steps[floor.steps.length - 1])
    console.log(`  (the floor sustained every step: its figure is a lower bound, set by the load generator)`);
  console.log(
    `events accepted_per_s=${reported.perSecond.toFixed(0)} p99_ms=${reported.p99.toFixed(1)} lag_p99_s=${percentile(lags, 99).toFixed(2)} floor_per_s=${floorRate.toFixed(0)} floor_beside_worst_p99_ms=${besideWorst.toFixed(1)}${API_PROCESSES > 1 ? ` api_processes=${API_PROCESSES}` : ''}`,
  );

  await Promise.all(apis.map((a) => a.stop()));
  await stack.stop();
  await clickhouse.close();
  await db.$disconnect();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
