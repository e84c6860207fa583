/**
 * The creation saga across the kill of the process running it, the moment the
 * emulator has charged the deposit, before that process hears the answer:
 * - the worker process, for an api that leaves the saga to it (API_CREATION_WORKER=off);
 * - the api process itself, which runs the sagas it starts eagerly (worker/creation-worker.ts):
 *   its request dies with it, and the client retries under the same key on the next api.
 * Whoever takes the saga's workflow task next runs it again (its steps are local
 * activities, each idempotent), and the request still ends with one campaign, one
 * charge and one review.
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
let db: Db;
let proxy: http.Server;
let proxyUrl: string;

/** The process to kill and how to start the next one; both reach Stripe through the proxy. */
interface SagaHost {
  current: ServiceProcess | null;
  start(): Promise<ServiceProcess>;
}
/** Set by each test: the one that runs the saga. */
let host: SagaHost;
let confirms = 0;
let killed = false;
let killedPid: number | undefined;

/** A worker on the test's task queue (node itself, so a SIGKILL reaches it). */
const startWorker = (stripeUrl: string) =>
  startService({
    service: 'worker',
    entry: 'worker/main.ts',
    ready: /worker ready/,
    portVariable: 'WORKER_KILL_TEST_UNUSED_PORT',
    env: { TEMPORAL_TASK_QUEUE: taskQueue, STRIPE_EMULATOR_URL: stripeUrl },
    startTimeoutMs: 120_000,
  });

/** Kills the saga's host once the emulator has charged, then starts the next one; the answer is never delivered. */
async function killHost(req: http.IncomingMessage): Promise<void> {
  killed = true;
  killedPid = host.current!.child.pid;
  const exited = new Promise((r) => host.current!.child.once('exit', r));
  host.current!.child.kill('SIGKILL');
  await exited;
  req.socket.destroy();
  host.current = await host.start();
}

/** Forwards to the emulator; on the first deposit confirm, kills the saga's host once the charge is made and drops the answer. */
function proxyHandler(target: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const isConfirm = req.method === 'POST' && /^\/v1\/payment_intents\/[^/]+\/confirm$/.test(req.url ?? '');
    if (isConfirm) confirms += 1;
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        if (isConfirm && !killed) {
          void killHost(req);
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
}, 120_000);
afterAll(async () => {
  await endBackgroundJobs(taskQueue, 'test over');
  await new Promise((r) => proxy.close(r));
  await closeWithin(5_000, 'temporal connection', () => temporal.connection.close());
  await closeDb(db);
});

/** Creates a campaign under one key, retrying as the contract says (503 request_timeout, or the api gone), on `api()`. */
async function createThroughKill(api: () => ServiceProcess) {
  confirms = 0;
  killed = false;
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const body = {
    name: `Saga host kill ${process.pid}-${Date.now()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
  };
  const headers = { 'Idempotency-Key': `saga-kill-${process.pid}-${Date.now()}` };
  const attempt = () => call(api().url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers }).catch(() => null);
  const created = (await eventually(attempt, (res) => res !== null && res.status !== 503))!;
  return { organizationId, body, created };
}

/** One campaign, one charge (recorded on it), one running review. */
async function expectCreatedOnce({ organizationId, body, created }: Awaited<ReturnType<typeof createThroughKill>>) {
  expect(killed).toBe(true);
  expect(confirms).toBeGreaterThanOrEqual(2); // the next host confirmed again, under the same idempotency key
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: body.name, status: 'paused', review_status: 'in_review' });
  expect(await db.campaign.count({ where: { organizationId } })).toBe(1);
  const intents = await intentsWhere((pi) => pi.metadata.organization_id === organizationId);
  expect(intents.map((pi) => [pi.status, pi.metadata.campaign_id])).toEqual([['succeeded', created.body.id]]);
  const row = await db.campaign.findUniqueOrThrow({ where: { id: created.body.id } });
  expect(row.depositPaymentIntentId).toBe(intents[0].id);
  const review = await temporal.workflow.getHandle(`campaign-review-${created.body.id}`).describe();
  expect(review.status.name).toBe('RUNNING');
}

test('a worker killed after the charge, before its answer: one campaign, one charge, one review', async () => {
  const api = await startApiProcess({ TEMPORAL_TASK_QUEUE: taskQueue, API_CREATION_WORKER: 'off' });
  host = { current: null, start: () => startWorker(proxyUrl) };
  host.current = await host.start();
  try {
    await expectCreatedOnce(await createThroughKill(() => api));
  } finally {
    await api.stop();
    await host.current?.stop();
  }
}, 180_000);

test('an api killed while running the saga it started eagerly: the retry on the next api answers one campaign, one charge, one review', async () => {
  const worker = await startWorker(proxyUrl);
  host = { current: null, start: () => startApiProcess({ TEMPORAL_TASK_QUEUE: taskQueue, STRIPE_EMULATOR_URL: proxyUrl }) };
  host.current = await host.start();
  try {
    const outcome = await createThroughKill(() => host.current!);
    await expectCreatedOnce(outcome);
    // The killed api had taken the saga's first workflow task in its start's answer.
    const history = await temporal.workflow.getHandle(`campaign-create-${outcome.created.body.id}`).fetchHistory();
    const firstTask = history.events!.find((e) => e.workflowTaskStartedEventAttributes)!.workflowTaskStartedEventAttributes!;
    expect(firstTask.identity).toMatch(new RegExp(`^${killedPid}@`));
  } finally {
    await host.current?.stop();
    await worker.stop();
  }
}, 180_000);
