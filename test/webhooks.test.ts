/**
 * Webhooks end to end (domain/webhooks/, workflows/webhook-delivery.ts): endpoints over /v1,
 * events written with the change that raises them, delivered by the test run's worker to a
 * receiver on loopback (the test-only loopback allowance image fetches use), each once,
 * signed, in order per campaign, retried after failures, replayed and tested on demand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../domain/webhooks/signature';
import { csrfTokenFor } from '../lib/csrf';
import { insertAd, insertAdGroup, insertCampaign, organizationIdOf } from './support/fixtures';
import { adctl } from './support/cli';
import { call, errorBody, newOrg, useHarness } from './support/harness';
import { eventually, until } from './support/wait';
import { deliveryIssuesJob } from '../jobs/delivery-issues';
import { pruneWebhookEvents } from '../domain/webhooks/delivery';
import { completeIfBudgetExhausted, completeIfEnded } from '../domain/campaigns/lifecycle';

const h = useHarness();
// Deliveries go through the test run's worker; a retried one takes 15 s of backoff on its own.
jest.setTimeout(150_000);

interface Received {
  body: string;
  event: { id: string; type: string; data: { entity_id: string; campaign_id: string | null; reason: string | null } };
  signature: string;
  webhookId: string;
}

/** A receiver on loopback: records every POST; `refuse(event)` > 0 answers 500 that many times first. */
function startReceiver() {
  const received: Received[] = [];
  const refusals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const event = JSON.parse(body);
      received.push({ body, event, signature: String(req.headers['webhook-signature']), webhookId: String(req.headers['webhook-id']) });
      const left = refusals.get(event.type) ?? 0;
      if (left > 0) {
        refusals.set(event.type, left - 1);
        res.writeHead(500).end('try later');
      } else res.writeHead(200).end('ok');
    });
  });
  return {
    received,
    refuse: (type: string, times: number) => refusals.set(type, times),
    ofEvent: (id: string) => received.filter((r) => r.event.id === id),
    listen: () =>
      new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

let receiver: ReturnType<typeof startReceiver>;
let url: string;
/** Endpoints this file made: deleted afterwards, so the worker's jobs never look at their campaigns again. */
const made: string[] = [];
beforeAll(async () => {
  receiver = startReceiver();
  url = await receiver.listen();
});
afterAll(async () => {
  await h.db.webhookEndpoint.deleteMany({ where: { id: { in: made } } });
  await receiver.close();
});

type Org = Awaited<ReturnType<typeof newOrg>>;
const as = (org: Org) => (method: string, path: string, body?: unknown) => call(h.url, method, path, { token: org.api_key, body });

/** A fresh organization with one endpoint on the receiver; its API caller and the endpoint (with its secret). */
async function subscribed(events?: string[]) {
  const org = await newOrg(h.db);
  const api = as(org);
  const created = await api('POST', '/v1/webhook_endpoints', { url, ...(events && { enabled_events: events }) });
  expect(created.status).toBe(201);
  made.push(created.body.id);
  return { org, api, endpoint: created.body as { id: string; secret: string } };
}

/** The endpoint's delivery log once `done` holds for it. */
async function deliveriesWhen(api: ReturnType<typeof as>, endpointId: string, done: (rows: any[]) => boolean, what: string) {
  return eventually(async () => (await api('GET', `/v1/webhook_endpoints/${endpointId}/deliveries?order=asc&limit=100`)).body.data as any[], done, {
    what,
    timeoutMs: 90_000,
    everyMs: 250,
  });
}

describe('endpoints', () => {
  test('create shows the secret once; list and retrieve never; update, roll and delete', async () => {
    const org = await newOrg(h.db);
    const api = as(org);
    const created = await api('POST', '/v1/webhook_endpoints', { url, description: 'ops', enabled_events: ['campaign.activated'] });
    expect(created).toMatchObject({
      status: 201,
      body: {
        object: 'webhook_endpoint',
        url,
        description: 'ops',
        enabled_events: ['campaign.activated'],
        status: 'enabled',
        secret: expect.stringMatching(/^whsec_/),
      },
    });
    const { id, secret } = created.body;
    const read = await api('GET', `/v1/webhook_endpoints/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect((await api('GET', '/v1/webhook_endpoints')).body).toMatchObject({ object: 'list', count: 1, data: [{ id }] });
    const updated = await api('POST', `/v1/webhook_endpoints/${id}`, { status: 'disabled', enabled_events: ['*'] });
    expect(updated.body).toMatchObject({ status: 'disabled', enabled_events: ['*'] });
    const rolled = await api('POST', `/v1/webhook_endpoints/${id}/roll_secret`);
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(secret);
    expect((await api('DELETE', `/v1/webhook_endpoints/${id}`)).body).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    const gone = await api('GET', `/v1/webhook_endpoints/${id}`);
    expect([gone.status, gone.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'webhook_endpoint_id')]);
  });

  test('each change is in the audit log like any entity: created, updated, secret_rolled, deleted, by the key, the secrets masked', async () => {
    const org = await newOrg(h.db);
    const api = as(org);
    const created = await api('POST', '/v1/webhook_endpoints', { url, description: 'ops' });
    expect(created.status).toBe(201);
    const { id, secret } = created.body;
    expect((await api('POST', `/v1/webhook_endpoints/${id}`, { status: 'disabled' })).status).toBe(200);
    expect((await api('POST', `/v1/webhook_endpoints/${id}`, { status: 'disabled' })).status).toBe(200); // no change: no entry
    const rolled = await api('POST', `/v1/webhook_endpoints/${id}/roll_secret`);
    expect(rolled.status).toBe(200);
    expect((await api('DELETE', `/v1/webhook_endpoints/${id}`)).status).toBe(200);
    // A failed change (already gone) leaves no entry.
    expect((await api('POST', `/v1/webhook_endpoints/${id}/roll_secret`)).status).toBe(404);

    const log = await api('GET', `/v1/audit_log?entity_type=webhook_endpoint&entity_id=${id}&order=asc`);
    expect(log.status).toBe(200);
    const organizationId = await organizationIdOf(h.db, org);
    const key = { type: 'api_key', id: (await h.db.apiKey.findFirstOrThrow({ where: { organizationId, isActive: true } })).publicId };
    const fields = { url, description: 'ops', enabled_events: ['*'], signing_secret: '[redacted]' };
    expect(log.body.data.map((e: any) => ({ entity_type: e.entity_type, action: e.action, actor: e.actor, before: e.before, after: e.after }))).toEqual([
      {
        entity_type: 'webhook_endpoint',
        action: 'created',
        actor: key,
        before: null,
        after: { ...fields, status: 'enabled', previous_signing_secret: null, previous_secret_expires_at: null },
      },
      { entity_type: 'webhook_endpoint', action: 'updated', actor: key, before: { status: 'enabled' }, after: { status: 'disabled' } },
      {
        entity_type: 'webhook_endpoint',
        action: 'secret_rolled',
        actor: key,
        before: { signing_secret: '[redacted]', previous_signing_secret: null, previous_secret_expires_at: null },
        after: { signing_secret: '[redacted]', previous_signing_secret: '[redacted]', previous_secret_expires_at: expect.any(String) },
      },
      {
        entity_type: 'webhook_endpoint',
        action: 'deleted',
        actor: key,
        before: { ...fields, status: 'disabled', previous_signing_secret: '[redacted]', previous_secret_expires_at: expect.any(String) },
        after: null,
      },
    ]);
    const text = JSON.stringify(log.body);
    for (const s of [secret, rolled.body.secret]) expect(text).not.toContain(s);
    // Another organization sees none of it.
    const other = await as(await newOrg(h.db))('GET', `/v1/audit_log?entity_id=${id}`);
    expect(other.body.data).toEqual([]);
  });

  test('at most 5 per organization → 400 webhook_endpoint_limit', async () => {
    const api = as(await newOrg(h.db));
    for (let i = 0; i < 5; i += 1) {
      const created = await api('POST', '/v1/webhook_endpoints', { url });
      expect(created.status).toBe(201);
      made.push(created.body.id);
    }
    const sixth = await api('POST', '/v1/webhook_endpoints', { url });
    expect([sixth.status, sixth.body]).toEqual([400, errorBody('webhook_endpoint_limit')]);
  });

  // Refused before any connection: literal addresses the guard classifies, schemes it refuses.
  test.each([
    ['ftp://127.0.0.1/hooks', 'url'],
    ['https://10.1.2.3/hooks', 'url'],
    ['https://user:pw@127.0.0.1/hooks', 'url'],
    ['not a url', 'url'],
  ])('%s → 400 invalid_value', async (bad, param) => {
    const res = await as(await newOrg(h.db))('POST', '/v1/webhook_endpoints', { url: bad });
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', param)]);
  });

  test("another organization's endpoint → 404", async () => {
    const { endpoint } = await subscribed();
    const res = await as(await newOrg(h.db))('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'webhook_endpoint_id')]);
  });
});

describe('adctl webhook', () => {
  test('create, list, test, deliveries, replay and delete for an organization', async () => {
    const org = await newOrg(h.db);
    const run = async (...args: string[]) => {
      const result = await adctl('webhook', ...args);
      expect([result.code, result.stderr]).toEqual([0, '']);
      return JSON.parse(result.stdout);
    };
    const created = await run('create', '--org', org.org_public_id, '--url', url, '--events', 'campaign.activated,campaign.paused');
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url,
      enabled_events: ['campaign.activated', 'campaign.paused'],
      secret: expect.stringMatching(/^whsec_/),
    });
    made.push(created.id);
    expect((await run('list', '--org', org.org_public_id)).webhook_endpoints).toEqual([
      expect.objectContaining({ id: created.id, org_public_id: org.org_public_id }),
    ]);
    const test = await run('test', created.id);
    expect(test).toMatchObject({ event_type: 'webhook.test', status: 'pending' });
    await eventually(
      () => receiver.ofEvent(test.event_id).length,
      (n) => n === 1,
      { what: 'the test event received', timeoutMs: 90_000 },
    );
    const log = await eventually(
      async () => (await run('deliveries', created.id)).deliveries as { id: string; status: string }[],
      (rows) => rows[0]?.status === 'succeeded',
      { what: 'the delivery log', timeoutMs: 90_000 },
    );
    expect((await run('replay', created.id, log[0].id)).replay).toBe(true);
    await eventually(
      () => receiver.ofEvent(test.event_id).length,
      (n) => n === 2,
      { what: 'the replay received', timeoutMs: 90_000 },
    );
    expect(await run('delete', created.id)).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
    // The operator's changes are in the organization's audit log as the operator's.
    const entries = await h.db.auditEntry.findMany({ where: { entityType: 'webhook_endpoint', entityId: created.id }, orderBy: { createdAt: 'asc' } });
    expect(entries.map((e) => [e.action, e.actorType])).toEqual([
      ['created', 'operator'],
      ['deleted', 'operator'],
    ]);
    const unknown = await adctl('webhook', 'create', '--org', org.org_public_id, '--url', url, '--events', 'bogus');
    expect(unknown.code).toBe(2);
  });
});

describe('deliveries', () => {
  test('a campaign activated: delivered once, signed, with a unique event id', async () => {
    const { org, api, endpoint } = await subscribed();
    const campaign = await insertCampaign(h.db, org, { reviewStatus: 'approved' });
    expect((await api('POST', `/v1/campaigns/${campaign.id}/activate`)).status).toBe(200);
    const [delivery] = await deliveriesWhen(api, endpoint.id, (rows) => rows[0]?.status === 'succeeded', 'the activation delivered');
    expect(delivery).toMatchObject({ event_type: 'campaign.activated', status: 'succeeded', attempts: 1, last_status_code: 200, replay: false });
    const got = receiver.ofEvent(delivery.event_id);
    expect(got).toHaveLength(1);
    expect(got[0].event).toMatchObject({
      id: delivery.event_id,
      object: 'event',
      type: 'campaign.activated',
      data: { entity_type: 'campaign', entity_id: campaign.id, campaign_id: campaign.id, previous: { status: 'paused' }, current: { status: 'active' } },
    });
    expect(got[0].webhookId).toBe(delivery.event_id);
    expect(verifyWebhookSignature(got[0].signature, got[0].body, endpoint.secret)).toBe(true);
    expect(verifyWebhookSignature(got[0].signature, got[0].body, 'whsec_wrong')).toBe(false);
    expect(verifyWebhookSignature(got[0].signature, `${got[0].body} `, endpoint.secret)).toBe(false);
  });

  test('refused twice, then taken: retried with backoff; the next event of the campaign waits its turn', async () => {
    const { org, api, endpoint } = await subscribed(['campaign.paused', 'campaign.activated']);
    const campaign = await insertCampaign(h.db, org, { reviewStatus: 'approved', status: 'active' });
    receiver.refuse('campaign.paused', 2);
    expect((await api('POST', `/v1/campaigns/${campaign.id}/pause`)).status).toBe(200);
    expect((await api('POST', `/v1/campaigns/${campaign.id}/activate`)).status).toBe(200);
    const rows = await deliveriesWhen(api, endpoint.id, (r) => r.length === 2 && r.every((d) => d.status === 'succeeded'), 'both delivered');
    const byType = Object.fromEntries(rows.map((d) => [d.event_type, d]));
    expect(byType).toMatchObject({ 'campaign.paused': { attempts: 3, last_status_code: 200 }, 'campaign.activated': { attempts: 1 } });
    const paused = receiver.ofEvent(byType['campaign.paused'].event_id);
    expect(paused).toHaveLength(3);
    for (const attempt of paused) expect(verifyWebhookSignature(attempt.signature, attempt.body, endpoint.secret)).toBe(true);
    // In order: the activation came only after the pause was taken.
    const order = receiver.received.filter((r) => r.event.data.campaign_id === campaign.id).map((r) => r.event.type);
    expect(order).toEqual(['campaign.paused', 'campaign.paused', 'campaign.paused', 'campaign.activated']);
  });

  test('a replay sends the same event again; a test event; a rolled secret signs beside the new one', async () => {
    const { api, endpoint } = await subscribed();
    const test = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/test`);
    expect(test).toMatchObject({ status: 201, body: { object: 'webhook_delivery', event_type: 'webhook.test', status: 'pending', attempts: 0 } });
    await deliveriesWhen(api, endpoint.id, (rows) => rows[0]?.status === 'succeeded', 'the test event delivered');
    const rolled = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/roll_secret`);
    const replay = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/deliveries/${test.body.id}/replay`);
    expect(replay).toMatchObject({ status: 201, body: { event_id: test.body.event_id, replay: true, status: 'pending' } });
    await deliveriesWhen(api, endpoint.id, (rows) => rows.length === 2 && rows[1].status === 'succeeded', 'the replay delivered');
    const got = receiver.ofEvent(test.body.event_id);
    expect(got.map((r) => r.event.type)).toEqual(['webhook.test', 'webhook.test']);
    expect(verifyWebhookSignature(got[1].signature, got[1].body, rolled.body.secret)).toBe(true);
    expect(verifyWebhookSignature(got[1].signature, got[1].body, endpoint.secret)).toBe(true);
  });

  test('an API key rotated and revoked (the dashboard): both sent', async () => {
    const { org, api, endpoint } = await subscribed(['api_key.rotated', 'api_key.revoked']);
    const headers = { cookie: `dashboard_session=${org.session_token}`, 'x-csrf-token': csrfTokenFor(org.session_token) };
    const minted = await call(h.url, 'POST', '/dashboard/api/api-keys', { headers, body: { name: 'second' } });
    expect(minted.status).toBe(201);
    const rows = await deliveriesWhen(api, endpoint.id, (r) => r[0]?.status === 'succeeded', 'the rotation delivered');
    expect(rows.map((d) => d.event_type)).toEqual(['api_key.rotated']);
    const revoked = await call(h.url, 'DELETE', `/dashboard/api/api-keys/${minted.body.api_key.public_id}`, { headers });
    expect(revoked.status).toBe(200);
    const both = await deliveriesWhen(api, endpoint.id, (r) => r.length === 2 && r[1].status === 'succeeded', 'the revocation delivered');
    expect(both[1]).toMatchObject({ event_type: 'api_key.revoked', attempts: 1 });
    const [revocation] = receiver.ofEvent(both[1].event_id);
    expect(revocation.event.data).toMatchObject({ entity_type: 'api_key', entity_id: minted.body.api_key.public_id });
  });

  test("a review rejected, with the reviewer's reason (adctl review reject on a campaign the saga created)", async () => {
    const { api, endpoint } = await subscribed(['campaign.review_approved', 'campaign.review_rejected']);
    const created = await api('POST', '/v1/campaigns', {
      name: `Reviewed ${Date.now()}`,
      budget: { lifetime_spend_limit_micros: 10_000_000 },
      ad_groups: [{ context_hints: ['tea'], ads: [{ creative: { type: 'chat_card', title: 'Tea', body: 'Leaves', cta: 'Shop' } }] }],
    });
    expect(created.status).toBe(201);
    const rejected = await adctl('review', 'reject', created.body.id, '--reason', 'misleading claims');
    expect([rejected.code, rejected.stderr]).toEqual([0, '']);
    const [delivery] = await deliveriesWhen(api, endpoint.id, (r) => r[0]?.status === 'succeeded', 'the rejection delivered');
    expect(receiver.ofEvent(delivery.event_id)[0].event).toMatchObject({
      type: 'campaign.review_rejected',
      data: { entity_id: created.body.id, reason: 'misleading claims', previous: { review_status: 'in_review' }, current: { review_status: 'rejected' } },
    });
  });

  test("budget exhausted and ended: the lifecycle workflow's completions, each sent once with its reason", async () => {
    const { org, api, endpoint } = await subscribed(['campaign.budget_exhausted', 'campaign.completed']);
    const spent = await insertCampaign(h.db, org, { reviewStatus: 'approved', status: 'active', lifetimeSpendLimitMicros: 1_000_000n });
    await h.db.campaignSpend.create({ data: { campaignId: spent.id, spentMicros: 1_000_000n, exhaustedAt: new Date() } });
    const ended = await insertCampaign(h.db, org, { reviewStatus: 'approved', status: 'active', endTime: new Date(Date.now() - 60_000) });
    // What the lifecycle workflow's activities do (activities/campaign-lifecycle.ts); a repeat completes nothing more.
    for (let i = 0; i < 2; i += 1) {
      await completeIfBudgetExhausted(h.db, spent.id);
      await completeIfEnded(h.db, ended.id, new Date());
    }
    const rows = await deliveriesWhen(api, endpoint.id, (r) => r.length === 2 && r.every((d) => d.status === 'succeeded'), 'both completions delivered');
    const sent = rows.map((d) => receiver.ofEvent(d.event_id)[0].event);
    expect(sent.map((e) => [e.type, e.data.campaign_id, e.data.reason]).sort()).toEqual(
      [
        ['campaign.budget_exhausted', spent.id, 'budget_exhausted'],
        ['campaign.completed', ended.id, 'ended'],
      ].sort(),
    );
  });

  test('a delivery issue appeared, then cleared (the delivery-issues job)', async () => {
    const { org, api, endpoint } = await subscribed(['campaign.delivery_issue_appeared', 'campaign.delivery_issue_cleared']);
    const campaign = await insertCampaign(h.db, org, { reviewStatus: 'approved', status: 'active', startTime: new Date(Date.now() - 3600_000) });
    await insertAd(h.db, (await insertAdGroup(h.db, campaign.id)).id);
    // The first look sets what later ones compare with (the worker's own run may be the one).
    await h.runJob(deliveryIssuesJob);
    await until(async () => (await h.db.campaignDeliveryIssues.count({ where: { campaignId: campaign.id } })) === 1, 'the first look');
    const sent = (type: string) =>
      receiver.received.filter((r) => r.event.type === type && r.event.data.campaign_id === campaign.id && r.event.data.reason === 'campaign_paused');
    expect((await api('POST', `/v1/campaigns/${campaign.id}/pause`)).status).toBe(200);
    await h.runJob(deliveryIssuesJob);
    await until(() => sent('campaign.delivery_issue_appeared').length === 1, 'the issue appeared', 60_000);
    expect(sent('campaign.delivery_issue_appeared')[0].event.data).toMatchObject({
      entity_type: 'campaign',
      entity_id: campaign.id,
      current: { code: 'campaign_paused' },
    });
    expect((await api('POST', `/v1/campaigns/${campaign.id}/activate`)).status).toBe(200);
    await h.runJob(deliveryIssuesJob);
    await until(() => sent('campaign.delivery_issue_cleared').length === 1, 'the issue cleared', 60_000);
    expect(sent('campaign.delivery_issue_cleared')[0].event.data).toMatchObject({ previous: { code: 'campaign_paused' }, current: null });
    // Each once, whatever ran the job.
    expect(sent('campaign.delivery_issue_appeared')).toHaveLength(1);
    await deliveriesWhen(api, endpoint.id, (r) => r.every((d) => d.status === 'succeeded'), 'all delivered');
  });

  // Last: it prunes every finished event of the test database, as the retention job would in 31 days.
  test('retention: events and their logs go after 30 days, unless a delivery is still being retried', async () => {
    const { org, api, endpoint } = await subscribed();
    const test = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/test`);
    await deliveriesWhen(api, endpoint.id, (rows) => rows[0]?.status === 'succeeded', 'the test event delivered');
    const organizationId = (await h.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).organizationId;
    // A delivery still retrying (handed over, so the dispatch job leaves it be).
    const retrying = await h.db.webhookEvent.create({
      data: { id: `evt_retrying_${org.org_public_id}`, organizationId, type: 'campaign.paused', orderingKey: 'k', payload: {} },
    });
    await h.db.webhookDelivery.create({ data: { endpointId: endpoint.id, eventId: retrying.id, orderingKey: 'k', signaledAt: new Date() } });
    expect(await pruneWebhookEvents(h.db, 30, Date.now() - 29 * 86_400_000)).toBe(0);
    await pruneWebhookEvents(h.db, 30, Date.now() + 31 * 86_400_000);
    expect(await h.db.webhookEvent.findUnique({ where: { id: test.body.event_id } })).toBeNull();
    const left = (await api('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`)).body.data;
    expect(left.map((d: { event_id: string; status: string }) => [d.event_id, d.status])).toEqual([[retrying.id, 'pending']]);
  });
});
