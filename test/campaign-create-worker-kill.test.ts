/**
 * The creation saga across a worker kill: the worker is SIGKILLed the moment
 * the emulator has charged the deposit, before the worker hears the answer.
 * The next worker runs the saga's workflow task again (its steps are local
 * activities, each idempotent), and the request still ends with one campaign,
 * one charge and one review.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endBackgroundJobs } from '../worker/jobs';
import { startApiProcess, startService, type ServiceProcess } from '../dev/processes';
import { closeDb, createDb, type Db } from '../lib/db';
import { createTemporalClient } from '../lib/temporal';
import { closeWithin } from '../lib/deadline';
import { organizationIdOf } from './support/fixtures';
import { call, newOrg } from './support/harness';
import { intentsWhere } from './support/stripe';
import { eventually } from './support/wait';

const taskQueue = `adplatform-create-kill-${process.pid}-${Date.now()}`;
const temporal = createTemporalClient();
let api: ServiceProcess;
let db: Db;
let proxy: http.Server;
let proxyUrl: string;
let worker: ServiceProcess | null = null;
let confirms = 0;
let killed = false;

/** A worker on the test's task queue that reaches Stripe through the proxy (node itself, so a SIGKILL reaches the worker). */
function startWorker(): Promise<ServiceProcess> {
  return startService({
    service: 'worker',
    entry: 'worker/main.ts',
    ready: /worker ready/,
    portVariable: 'WORKER_KILL_TEST_UNUSED_PORT',
    env: { TEMPORAL_TASK_QUEUE: taskQueue, STRIPE_EMULATOR_URL: proxyUrl },
    startTimeoutMs: 120_000,
  });
}

/** Kills the worker once the emulator has charged, then starts the next one; the answer is never delivered. */
async function killWorker(req: http.IncomingMessage): Promise<void> {
  killed = true;
  const exited = new Promise((r) => worker!.child.once('exit', r));
  worker!.child.kill('SIGKILL');
  await exited;
  req.socket.destroy();
  worker = await startWorker();
}

/** Forwards to the emulator; on the first deposit confirm, kills the worker once the charge is made and drops the answer. */
function proxyHandler(target: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const isConfirm = req.method === 'POST' && /^\/v1\/payment_intents\/[^/]+\/confirm$/.test(req.url ?? '');
    if (isConfirm) confirms += 1;
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        if (isConfirm && !killed) {
          void killWorker(req);
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(Buffer.concat(chunks));
      });
    });
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  };
}

beforeAll(async () => {
  db = createDb(undefined, 2);
  proxy = http.createServer(proxyHandler(process.env.STRIPE_EMULATOR_URL!));
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  api = await startApiProcess({ TEMPORAL_TASK_QUEUE: taskQueue });
  worker = await startWorker();
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await endBackgroundJobs(taskQueue, 'test over');
  await new Promise((r) => proxy.close(r));
  await closeWithin(5_000, 'temporal connection', () => temporal.connection.close());
  await closeDb(db);
});

test('a worker killed after the charge, before its answer: one campaign, one charge, one review', async () => {
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const body = {
    name: `Worker kill ${process.pid}-${Date.now()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
  };
  const headers = { 'Idempotency-Key': `worker-kill-${process.pid}-${Date.now()}` };
  // The client's contract: on 503 request_timeout, retry under the same key.
  const created = await eventually(
    () => call(api.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers }),
    (res) => res.status !== 503,
  );
  expect(killed).toBe(true);
  expect(confirms).toBeGreaterThanOrEqual(2); // the next worker confirmed again, under the same idempotency key
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: body.name, status: 'paused', review_status: 'in_review' });
  expect(await db.campaign.count({ where: { organizationId } })).toBe(1);
  const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
  expect(intents.map((pi) => [pi.status, pi.metadata.campaign_id])).toEqual([['succeeded', created.body.id]]);
  const row = await db.campaign.findUniqueOrThrow({ where: { id: created.body.id } });
  expect(row.depositPaymentIntentId).toBe(intents[0].id);
  const review = await temporal.workflow.getHandle(`campaign-review-${created.body.id}`).describe();
  expect(review.status.name).toBe('RUNNING');
}, 180_000);
