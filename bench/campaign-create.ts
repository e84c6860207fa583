/**
 * Campaign-create latency through the whole saga: HTTP → validation →
 * Temporal workflow → persist tree → Stripe deposit (local emulator) → review
 * workflow started → 201. Real PostgreSQL and Temporal (run the bootstrap first:
 * `npm run bench:campaign-create` does).
 *
 * BENCH_API_PROCESSES=2 sends the creates to that many api processes in turn.
 *
 * The api runs the sagas it starts, started eagerly (worker/creation-worker.ts). At
 * concurrency 1 the bench also sends, alternating with those, the same creates to an api
 * with API_CREATION_WORKER=off (each saga dispatched to the worker process through a
 * poll): `dispatched_p50_ms` is what eager start saves, measured in the same minutes.
 *
 * Temporal: a fresh development server of the bench's own (dev/private-temporal.ts), so a run
 * does not depend on what earlier runs left in the shared one; BENCH_TEMPORAL=shared measures
 * on the bootstrap's server instead (the line then ends with `temporal=shared`).
 *
 *   BENCH_CREATES=50 BENCH_CONCURRENCY=1 npm run bench:campaign-create
 */
import { performance } from 'node:perf_hooks';
import { percentile } from './support/load';

async function main() {
  const total = Number(process.env.BENCH_CREATES ?? 40);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
  const apiProcesses = Number(process.env.BENCH_API_PROCESSES ?? 1);
  // A fresh Temporal server of its own (dev/private-temporal.ts says why); BENCH_TEMPORAL=shared runs on the bootstrap's.
  const { startPrivateTemporal } = await import('../dev/private-temporal');
  const temporal = process.env.BENCH_TEMPORAL === 'shared' ? null : await startPrivateTemporal();
  if (temporal) process.env.TEMPORAL_ADDRESS = temporal.address;
  // Loaded after the stack has set the task queue and Stripe URL in the environment.
  const { startLocalStack } = await import('../dev/local-stack');
  const stack = await startLocalStack('bench');
  const { startApiProcess } = await import('../dev/processes');
  const { createDb } = await import('../lib/db');
  const { createOrganization } = await import('../domain/organizations/service');

  const db = createDb();
  // The api as it runs in production: its own process (api/server.ts).
  const apis = await Promise.all(Array.from({ length: apiProcesses }, () => startApiProcess()));
  const dispatched = concurrency === 1 ? await startApiProcess({ API_CREATION_WORKER: 'off' }) : null;
  const newOrg = () => createOrganization(db, { name: `bench ${Date.now()}`, domain: 'bench.example', paymentMethodId: 'pm_card_visa', withAdAccount: true });
  // One organization each, so the two never share a key's creates budget.
  const [org, dispatchedOrg] = await Promise.all([newOrg(), newOrg()]);

  const createOne = async (i: number, api = apis[(i + apiProcesses) % apiProcesses]) => {
    const started = performance.now();
    const res = await fetch(`${api.url}/v1/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api === dispatched ? dispatchedOrg.api_key : org.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Bench campaign ${i} ${api.port} ${Date.now()}`,
        budget: { lifetime_spend_limit_micros: 50_000_000 },
        targeting: { locations: { include: [{ country_code: 'us' }, { country_code: 'DE' }] } },
        ad_groups: [
          {
            name: 'Group',
            context_hints: ['running shoes'],
            ads: [
              { creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes for long runs' } },
              { auto_generate: true, creative: { type: 'chat_card' } },
            ],
          },
        ],
      }),
    });
    const elapsed = performance.now() - started;
    if (res.status !== 201) throw new Error(`create ${i} answered ${res.status}: ${await res.text()}`);
    return elapsed;
  };

  // One warm-up request each (connections, workflow code caches) is not counted.
  await createOne(-1);
  if (dispatched) await createOne(-1, dispatched);
  const latencies: number[] = [];
  const dispatchedLatencies: number[] = [];
  let next = 0;
  const wallStart = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        latencies.push(await createOne(i));
        if (dispatched) dispatchedLatencies.push(await createOne(i, dispatched));
      }
    }),
  );
  // Throughput of the eager creates alone: with the dispatched ones between them, their own time.
  const wall = (dispatched ? latencies.reduce((a, b) => a + b, 0) : performance.now() - wallStart) / 1000;

  report({ total, concurrency, apiProcesses, wall, latencies, dispatchedLatencies: dispatched ? dispatchedLatencies : null, sharedTemporal: !temporal });

  await Promise.all([...apis, ...(dispatched ? [dispatched] : [])].map((api) => api.stop()));
  await db.$disconnect();
  await stack.stop();
  await temporal?.stop();
}

interface Results {
  total: number;
  concurrency: number;
  apiProcesses: number;
  /** Seconds the eager creates took. */
  wall: number;
  latencies: number[];
  /** The same creates on an api with API_CREATION_WORKER=off (concurrency 1 only). */
  dispatchedLatencies: number[] | null;
  sharedTemporal: boolean;
}

/** Prints the figures and the bench's line. */
function report({ total, concurrency, apiProcesses, wall, latencies, dispatchedLatencies, sharedTemporal }: Results) {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => percentile(latencies, p);
  console.log(`campaign create through the saga: ${total} requests, concurrency ${concurrency}`);
  console.log(
    `  p50 ${pct(50).toFixed(1)} ms   p95 ${pct(95).toFixed(1)} ms   max ${latencies[latencies.length - 1].toFixed(1)} ms   throughput ${(total / wall).toFixed(1)}/s`,
  );
  const dispatchedP50 = dispatchedLatencies
    ? percentile(
        dispatchedLatencies.sort((a, b) => a - b),
        50,
      )
    : 0;
  if (dispatchedLatencies) console.log(`  the same creates dispatched to the worker process (API_CREATION_WORKER=off): p50 ${dispatchedP50.toFixed(1)} ms`);
  console.log(
    `campaign-create requests=${total} concurrency=${concurrency} p50_ms=${pct(50).toFixed(1)} p95_ms=${pct(95).toFixed(1)} throughput_per_s=${(total / wall).toFixed(1)}` +
      (dispatchedLatencies ? ` dispatched_p50_ms=${dispatchedP50.toFixed(1)}` : '') +
      (apiProcesses > 1 ? ` api_processes=${apiProcesses}` : '') +
      (sharedTemporal ? ' temporal=shared' : ''),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
