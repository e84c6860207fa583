/**
 * `POST /v1/campaigns` with no worker (issue 6, part 4): an api process whose
 * task queue no worker polls (and that runs no saga worker itself) answers 503 request_timeout after
 * CAMPAIGN_CREATE_TIMEOUT_MS; once a worker polls that queue, the retry with the
 * same Idempotency-Key answers the real outcome of the same saga: one
 * campaign, one charge. Without a key the saga still completes; a retry then
 * meets the name (409 name_conflict) and nothing is charged twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { endBackgroundJobs } from '../worker/jobs';
import { startApiProcess, stopProcess, type ServiceProcess } from '../dev/processes';
import { closeDb, createDb, type Db } from '../lib/db';
import { organizationIdOf } from './support/fixtures';
import { call, errorBody, newOrg } from './support/harness';
import { intentsWhere } from './support/stripe';
import { eventually } from './support/wait';

const root = path.resolve(__dirname, '..');
const taskQueue = `adplatform-no-worker-${process.pid}-${Date.now()}`;
let api: ServiceProcess;
let db: Db;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  db = createDb(undefined, 2);
  // No saga worker of its own either: the api leaves the saga to the worker process.
  api = await startApiProcess({ TEMPORAL_TASK_QUEUE: taskQueue, CAMPAIGN_CREATE_TIMEOUT_MS: '3000', API_CREATION_WORKER: 'off' });
}, 120_000);
afterAll(async () => {
  await api?.stop();
  if (worker) await stopProcess(worker);
  await endBackgroundJobs(taskQueue, 'test over');
  await closeDb(db);
});

/** A worker on the test's task queue, as dev/local-stack.ts starts one; resolves once it polls. */
async function startWorker(): Promise<ChildProcess> {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'worker/main.ts')], {
    cwd: root,
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (/worker ready/.test(output)) resolve();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return child;
}

let counter = 0;
function campaignBody() {
  counter += 1;
  return {
    name: `Timeout campaign ${counter} ${process.pid}-${Date.now()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
  };
}

test('503 request_timeout while no worker runs; the retry with the same key answers the same saga: one campaign, one charge', async () => {
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const keyed = campaignBody();
  const keyless = campaignBody();
  const headers = { 'Idempotency-Key': `timeout-${process.pid}-${Date.now()}` };
  const post = (body: object, h: Record<string, string> = {}) => call(api.url, 'POST', '/v1/campaigns', { token: org.api_key, body, headers: h });

  const first = await post(keyed, headers);
  expect(first.status).toBe(503);
  expect(first.body).toEqual(errorBody('request_timeout', 'server_error'));
  expect(first.body.error.message).toMatch(/Idempotency-Key/);
  // A retry before any worker runs attaches to the same pending run and times out again.
  expect((await post(keyed, headers)).status).toBe(503);
  // Without a key: the same answer.
  const noKey = await post(keyless);
  expect([noKey.status, noKey.body]).toEqual([503, errorBody('request_timeout', 'server_error')]);
  // Nothing has run: no worker polls this queue.
  expect(await db.campaign.count({ where: { organizationId } })).toBe(0);

  worker = await startWorker();
  // The client's contract: on 503 request_timeout, retry with the same key (the saga may need
  // longer than one wait now that it runs); every retry attaches to the one run.
  const retry = await eventually(
    () => post(keyed, headers),
    (res) => res.status !== 503,
  );
  expect(retry.status).toBe(201);
  expect(retry.body).toMatchObject({ name: keyed.name, status: 'paused', review_status: 'in_review' });
  // The stored answer is replayed from now on.
  const replay = await post(keyed, headers);
  expect([replay.status, replay.body, replay.headers.get('idempotent-replayed')]).toEqual([201, retry.body, 'true']);
  expect(await db.campaign.count({ where: { organizationId, name: keyed.name } })).toBe(1);
  expect(await intentsWhere((pi) => pi.metadata.campaign_id === retry.body.id && pi.status === 'succeeded')).toHaveLength(1);

  // The key-less request's saga completes on its own; retrying it meets the name.
  const [created] = await eventually(
    () => db.campaign.findMany({ where: { organizationId, name: keyless.name } }),
    (rows) => rows.length > 0,
  );
  // A key-less request that meets the name fails inside its own saga; on a busy machine that can outlast the wait (503 request_timeout).
  const again = await eventually(
    () => post(keyless),
    (res) => res.status !== 503,
  );
  expect([again.status, again.body]).toEqual([409, errorBody('name_conflict', 'invalid_request_error', 'name')]);
  expect(await db.campaign.count({ where: { organizationId, name: keyless.name } })).toBe(1);
  expect(await intentsWhere((pi) => pi.metadata.organization_id === organizationId && pi.status === 'succeeded')).toHaveLength(2); // one deposit per campaign: the keyed one and the key-less one
  expect(created.id).not.toBe(retry.body.id);
}, 120_000);
