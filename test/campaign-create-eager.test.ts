/**
 * Eager start (docs/architecture.md): an api process runs the creation sagas it
 * starts. The server answers the start with the saga's first workflow task, which
 * the api's own creation worker runs; the api counts the start as eager. An api
 * that started while Temporal was unreachable gets its worker on a later try.
 */
import net from 'node:net';
import { freePort, startApiProcess, type ServiceProcess } from '../dev/processes';
import { closeDb, createDb } from '../lib/db';
import { closeWithin } from '../lib/deadline';
import { createTemporalClient } from '../lib/temporal';
import { temporalConfig } from '../temporal.config';
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

const campaignBody = (name: string) => ({
  name: `${name} ${process.pid}-${Date.now()}`,
  budget: { lifetime_spend_limit_micros: 25_000_000 },
  ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
});

/** What the process's metrics say of its saga starts. */
async function startsOf(service: ServiceProcess): Promise<string[]> {
  await until(() => service.metricsUrl() !== null, 'the metrics line');
  const text = await (await fetch(service.metricsUrl()!)).text();
  return text.split('\n').filter((line) => line.startsWith('api_campaign_creation_starts_total{'));
}

test('the api ran the saga it started: the first task came back in the start answer, to its own worker', async () => {
  expect(api.output()).toMatch(/api creation worker ready on task queue \S+-creation/);
  const org = await newOrg(db);
  const body = campaignBody('Eager');
  const created = await call(api.url, 'POST', '/v1/campaigns', { token: org.api_key, body });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: body.name, status: 'paused', review_status: 'in_review' });

  const history = await temporal.workflow.getHandle(`campaign-create-${created.body.id}`).fetchHistory();
  const tasks = history.events!.filter((e) => e.workflowTaskStartedEventAttributes).map((e) => e.workflowTaskStartedEventAttributes!.identity);
  expect(tasks).toEqual([expect.stringMatching(new RegExp(`^${api.child.pid}@`))]);
  expect(await startsOf(api)).toEqual(['api_campaign_creation_starts_total{start="eager"} 1']);
}, 60_000);

test('an api started while Temporal is unreachable runs its creation worker once Temporal answers', async () => {
  // Temporal behind a loopback port that refuses connections at first, then forwards to the real server.
  const sockets = new Set<net.Socket>();
  const forward = net.createServer((socket) => {
    const upstream = net.connect({ host: '127.0.0.1', port: Number(temporalConfig.address.split(':')[1]) });
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
  });
  // Bound by the forwarder only once the api is up.
  const port = await freePort();
  const late = await startApiProcess({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
  try {
    expect(late.output()).toMatch(/api creation worker unavailable, next try in \d+ s/);
    await new Promise<void>((resolve) => forward.listen(port, '127.0.0.1', resolve));
    await until(() => /api creation worker ready/.test(late.output()), 'the creation worker on its next try', 60_000);
    const org = await newOrg(db);
    const created = await call(late.url, 'POST', '/v1/campaigns', { token: org.api_key, body: campaignBody('Late Temporal') });
    expect(created.status).toBe(201);
    expect(await startsOf(late)).toEqual(['api_campaign_creation_starts_total{start="eager"} 1']);
  } finally {
    await late.stop();
    for (const s of sockets) s.destroy();
    await new Promise((r) => forward.close(r));
  }
}, 120_000);
