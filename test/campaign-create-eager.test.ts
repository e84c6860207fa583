/**
 * Eager start (docs/architecture.md): an api process runs the creation sagas it
 * starts. The server answers the start with the saga's first workflow task, which
 * the api's own creation worker runs; the api counts the start as eager.
 */
import { startApiProcess, type ServiceProcess } from '../dev/processes';
import { closeDb, createDb } from '../lib/db';
import { closeWithin } from '../lib/deadline';
import { createTemporalClient } from '../lib/temporal';
import { call, newOrg } from './support/harness';
import { until } from './support/wait';

const db = createDb(undefined, 2);
const temporal = createTemporalClient();
let api: ServiceProcess;

beforeAll(async () => {
  api = await startApiProcess();
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await closeWithin(5_000, 'temporal connection', () => temporal.connection.close());
  await closeDb(db);
});

test('the api ran the saga it started: the first task came back in the start answer, to its own worker', async () => {
  expect(api.output()).toMatch(/api creation worker ready on task queue \S+-creation/);
  const org = await newOrg(db);
  const body = {
    name: `Eager ${process.pid}-${Date.now()}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
  };
  const created = await call(api.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: body.name, status: 'paused', review_status: 'in_review' });

  const history = await temporal.workflow.getHandle(`campaign-create-${created.body.id}`).fetchHistory();
  const tasks = history.events!.filter((e) => e.workflowTaskStartedEventAttributes).map((e) => e.workflowTaskStartedEventAttributes!.identity);
  expect(tasks).toEqual([expect.stringMatching(new RegExp(`^${api.child.pid}@`))]);

  await until(() => api.metricsUrl() !== null, 'the metrics line');
  const metrics = await (await fetch(api.metricsUrl()!)).text();
  expect(metrics).toMatch(/^api_campaign_creation_starts_total\{start="eager"\} 1$/m);
  expect(metrics).not.toMatch(/^api_campaign_creation_starts_total\{start="dispatched"\}/m);
}, 60_000);
