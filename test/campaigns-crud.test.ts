import { randomUUID } from 'node:crypto';
import { call, errorBody, newOrg, useOrgs } from './support/harness';
import { CAMPAIGN_FIELDS, insertCampaign, organizationIdOf } from './support/fixtures';

/** GET /v1/campaigns, GET and POST /v1/campaigns/{id}, and the status actions. */
const { h, org, other, api } = useOrgs();
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

describe('GET /v1/campaigns/{campaign_id}', () => {
  test('reads back every field of the spec', async () => {
    const campaign = await insertCampaign(h.db, org, {
      name: `Spring sale ${randomUUID()}`,
      status: 'paused',
      reviewStatus: 'in_review',
      startTime: new Date('2030-01-01T00:00:00Z'),
      lifetimeSpendLimitMicros: 25_000_000n,
      recurringFrequency: 'weekly',
      pricingModel: 'cpc',
      targetCountries: ['US', 'DE'],
    });
    const res = await api('GET', `/v1/campaigns/${campaign.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: campaign.id,
      name: campaign.name,
      description: null,
      status: 'paused',
      review_status: 'in_review',
      start_time: 1_893_456_000,
      end_time: null,
      budget: { lifetime_spend_limit_micros: 25_000_000 },
      recurring_frequency: 'weekly',
      pricing_model: 'cpc',
      targeting: {
        locations: {
          include: [
            { id: 'US', type: 'country', country_code: 'US' },
            { id: 'DE', type: 'country', country_code: 'DE' },
          ],
        },
      },
      created_at: seconds(campaign.createdAt),
      updated_at: seconds(campaign.updatedAt),
    });
  });

  test('description and end_time when set; untargeted reads an empty include', async () => {
    const campaign = await insertCampaign(h.db, org, { description: 'Shoes', endTime: new Date('2030-02-01T00:00:00Z') });
    const res = await api('GET', `/v1/campaigns/${campaign.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'Shoes', end_time: 1_896_134_400, targeting: { locations: { include: [] } } });
  });

  test.each([
    ['unknown', () => randomUUID()],
    ['malformed', () => 'not-a-uuid'],
  ])('%s id → 404 not_found', async (_name, id) => {
    const res = await api('GET', `/v1/campaigns/${id()}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
  });

  test("another organization's campaign → 404 not_found", async () => {
    const theirs = await insertCampaign(h.db, other);
    const res = await api('GET', `/v1/campaigns/${theirs.id}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
  });

  test('an uppercase id finds the campaign', async () => {
    const campaign = await insertCampaign(h.db, org);
    const res = await api('GET', `/v1/campaigns/${campaign.id.toUpperCase()}`);
    expect([res.status, res.body.id]).toEqual([200, campaign.id]);
  });
});

describe('GET /v1/campaigns', () => {
  let lister: Awaited<ReturnType<typeof newOrg>>;
  let ids: string[]; // oldest first

  beforeAll(async () => {
    lister = await newOrg(h.db);
    const base = Date.now() - 3_600_000;
    ids = [];
    for (let i = 0; i < 5; i += 1) ids.push((await insertCampaign(h.db, lister, { createdAt: new Date(base + i * 1000) })).id);
  });
  const list = (query = '') => api('GET', `/v1/campaigns${query}`, undefined, lister);
  const idsOf = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);

  test('newest first by default, with the list shape', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: expect.any(Array),
      count: 5,
      first_id: ids[4],
      last_id: ids[0],
      has_more: false,
    });
    expect(idsOf(res.body)).toEqual([...ids].reverse());
    expect(Object.keys(res.body.data[0]).sort()).toEqual(CAMPAIGN_FIELDS);
  });

  test('without limit, a page holds 20 (the default page size)', async () => {
    const many = await newOrg(h.db);
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < 21; i += 1) await insertCampaign(h.db, many, { createdAt: new Date(base + i * 1000) });
    const res = await api('GET', '/v1/campaigns', undefined, many);
    expect(res.status).toBe(200);
    expect([res.body.count, res.body.data.length, res.body.has_more]).toEqual([20, 20, true]);
  });

  test('order=asc, limit and has_more', async () => {
    const res = await list('?order=asc&limit=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 2, first_id: ids[0], last_id: ids[1], has_more: true });
    expect(idsOf(res.body)).toEqual([ids[0], ids[1]]);
  });

  test('after walks forward, exclusive, until has_more is false', async () => {
    const first = await list('?limit=2');
    expect(idsOf(first.body)).toEqual([ids[4], ids[3]]);
    const second = await list(`?limit=2&after=${first.body.last_id}`);
    expect(idsOf(second.body)).toEqual([ids[2], ids[1]]);
    expect(second.body.has_more).toBe(true);
    const third = await list(`?limit=2&after=${second.body.last_id}`);
    expect(idsOf(third.body)).toEqual([ids[0]]);
    expect(third.body).toMatchObject({ count: 1, has_more: false });
  });

  test('before walks back, exclusive, in list order', async () => {
    const res = await list(`?limit=2&before=${ids[1]}`);
    expect(idsOf(res.body)).toEqual([ids[3], ids[2]]);
    expect(res.body.has_more).toBe(true);
    const asc = await list(`?order=asc&limit=10&before=${ids[2]}`);
    expect(idsOf(asc.body)).toEqual([ids[0], ids[1]]);
    expect(asc.body.has_more).toBe(false);
  });

  test('limit bounds: 1 and 500 pass', async () => {
    expect(idsOf((await list('?limit=1')).body)).toEqual([ids[4]]);
    expect((await list('?limit=500')).body.count).toBe(5);
  });

  test.each([
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?order=newest', 'order'],
    ['?after=nope', 'after'],
    ['?before=nope', 'before'],
  ])('%s → 400 invalid_value', async (query, param) => {
    const res = await list(query);
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', param)]);
  });

  test('a well-formed cursor that names no row of the list → 404 not_found', async () => {
    for (const param of ['after', 'before']) {
      const res = await list(`?${param}=${randomUUID()}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', param)]);
    }
  });

  test('before and after together → 400 invalid_value', async () => {
    const res = await list(`?before=${ids[1]}&after=${ids[3]}`);
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'before')]);
  });

  test("another organization's campaign is not a cursor", async () => {
    const theirs = await insertCampaign(h.db, other);
    const res = await list(`?after=${theirs.id}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'after')]);
  });

  test('an organization with no campaigns gets an empty page', async () => {
    const empty = await newOrg(h.db);
    const res = await api('GET', '/v1/campaigns', undefined, empty);
    expect([res.status, res.body]).toEqual([200, { object: 'list', data: [], count: 0, first_id: null, last_id: null, has_more: false }]);
  });

  test('ad_account_id filters; unknown or foreign → 404, malformed → 400', async () => {
    const organizationId = await organizationIdOf(h.db, lister);
    const second = await h.db.adAccount.create({ data: { organizationId, name: 'Second' } });
    const inSecond = await insertCampaign(h.db, lister, { adAccountId: second.id });
    const filtered = await list(`?ad_account_id=${second.id}`);
    expect(idsOf(filtered.body)).toEqual([inSecond.id]);
    expect(idsOf((await list(`?ad_account_id=${lister.ad_account_id}`)).body)).toEqual([...ids].reverse());
    expect((await list()).body.count).toBe(6);

    for (const accountId of [randomUUID(), other.ad_account_id]) {
      const res = await list(`?ad_account_id=${accountId}`);
      expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'ad_account_id')]);
    }
    const malformed = await list('?ad_account_id=acct_1');
    expect([malformed.status, malformed.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', 'ad_account_id')]);
    await h.db.campaign.delete({ where: { id: inSecond.id } });
  });
});

describe('POST /v1/campaigns/{campaign_id} (update)', () => {
  const old = new Date('2020-01-01T00:00:00Z');
  const fresh = () =>
    insertCampaign(h.db, org, {
      description: 'Before',
      targetCountries: ['US'],
      endTime: new Date('2031-01-01T00:00:00Z'),
      createdAt: old,
      updatedAt: old,
    });

  test('only sent fields change, and updated_at moves', async () => {
    const campaign = await fresh();
    const before = (await api('GET', `/v1/campaigns/${campaign.id}`)).body;
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, { description: 'After' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, description: 'After', updated_at: expect.any(Number) });
    expect(res.body.updated_at).toBeGreaterThan(seconds(old));
  });

  test('every updatable field', async () => {
    const campaign = await fresh();
    const name = `Renamed ${randomUUID()}`;
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, {
      name,
      description: null,
      budget: { lifetime_spend_limit_micros: 990_000 },
      targeting: { locations: { include: [{ country_code: 'fr' }, { id: 'de' }] } },
      start_time: 1_900_000_000,
      end_time: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name,
      description: null,
      budget: { lifetime_spend_limit_micros: 990_000 },
      targeting: {
        locations: {
          include: [
            { id: 'FR', type: 'country', country_code: 'FR' },
            { id: 'DE', type: 'country', country_code: 'DE' },
          ],
        },
      },
      start_time: 1_900_000_000,
      end_time: null,
      status: 'paused',
      review_status: 'in_review',
      recurring_frequency: 'daily',
      pricing_model: 'cpm',
    });
    const row = await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } });
    expect(row.targetCountries).toEqual(['FR', 'DE']);
    expect(row.lifetimeSpendLimitMicros).toBe(990_000n);
  });

  test('an empty include clears the targeting; end_time can be set', async () => {
    const campaign = await fresh();
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, { targeting: { locations: { include: [] } }, end_time: 1_950_000_000 });
    expect(res.body).toMatchObject({ targeting: { locations: { include: [] } }, end_time: 1_950_000_000 });
  });

  test('an empty body changes nothing', async () => {
    const campaign = await fresh();
    const before = (await api('GET', `/v1/campaigns/${campaign.id}`)).body;
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, {});
    expect([res.status, res.body]).toEqual([200, before]);
  });

  test.each([
    ['status', { status: 'active' }, 'use_status_action', 'status'],
    ['status with valid fields', { name: 'Valid name', status: 'paused' }, 'use_status_action', 'status'],
    ['review_status', { review_status: 'approved' }, 'invalid_value', 'review_status'],
    ['recurring_frequency', { recurring_frequency: 'monthly' }, 'invalid_value', 'recurring_frequency'],
    ['pricing_model', { pricing_model: 'cpc' }, 'invalid_value', 'pricing_model'],
    ['budget below the minimum', { budget: { lifetime_spend_limit_micros: 989_999 } }, 'invalid_value', 'budget.lifetime_spend_limit_micros'],
    ['start_time not an integer', { start_time: 1_900_000_000.5 }, 'invalid_value', 'start_time'],
    ['end_time a string', { end_time: 'tomorrow' }, 'invalid_value', 'end_time'],
    ['name too long', { name: 'x'.repeat(101) }, 'string_too_long', 'name'],
    ['targeting without a country', { targeting: { locations: { include: [{ type: 'country' }] } } }, 'invalid_value', 'targeting.locations.include'],
    ['unknown field', { daily_budget: 1 }, 'invalid_value', 'daily_budget'],
  ])('%s → 400 and nothing changes', async (_name, body, code, param) => {
    const campaign = await fresh();
    const before = (await api('GET', `/v1/campaigns/${campaign.id}`)).body;
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, body);
    expect([res.status, res.body]).toEqual([400, errorBody(code, 'invalid_request_error', param)]);
    expect((await api('GET', `/v1/campaigns/${campaign.id}`)).body).toEqual(before);
  });

  test('a body that is not an object → 400 invalid_value', async () => {
    const campaign = await fresh();
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, ['name']);
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value')]);
  });

  test("another campaign's name → 409 name_conflict", async () => {
    const [a, b] = [await fresh(), await fresh()];
    const res = await api('POST', `/v1/campaigns/${b.id}`, { name: a.name });
    expect([res.status, res.body]).toEqual([409, errorBody('name_conflict', 'invalid_request_error', 'name')]);
  });

  test("another organization's campaign → 404, untouched", async () => {
    const theirs = await insertCampaign(h.db, other);
    const res = await api('POST', `/v1/campaigns/${theirs.id}`, { description: 'Mine now' });
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: theirs.id } })).description).toBeNull();
  });
});

describe('status actions: the campaign state table', () => {
  test.each([
    // [status, review_status, action, HTTP, resulting status or error code]
    ['paused', 'approved', 'activate', 200, 'active'],
    ['active', 'approved', 'activate', 200, 'active'],
    ['paused', 'in_review', 'activate', 400, 'campaign_not_approved'],
    ['paused', 'rejected', 'activate', 400, 'campaign_not_approved'],
    ['archived', 'in_review', 'activate', 400, 'campaign_not_approved'],
    ['archived', 'approved', 'activate', 400, 'campaign_terminal'],
    ['active', 'approved', 'pause', 200, 'paused'],
    ['paused', 'approved', 'pause', 400, 'campaign_not_running'],
    ['paused', 'in_review', 'pause', 400, 'campaign_not_running'],
    ['archived', 'approved', 'pause', 400, 'campaign_not_running'],
    ['active', 'approved', 'archive', 200, 'archived'],
    ['paused', 'approved', 'archive', 200, 'archived'],
    ['paused', 'in_review', 'archive', 200, 'archived'],
    ['paused', 'rejected', 'archive', 200, 'archived'],
    ['archived', 'approved', 'archive', 400, 'cannot_archive'],
  ])('%s + %s, %s → %i %s', async (status, reviewStatus, action, httpStatus, outcome) => {
    const old = new Date('2020-01-01T00:00:00Z');
    const campaign = await insertCampaign(h.db, org, { status, reviewStatus, updatedAt: old });
    const res = await api('POST', `/v1/campaigns/${campaign.id}/${action}`);
    const row = await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } });
    if (httpStatus === 200) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: campaign.id, status: outcome, review_status: reviewStatus });
      expect(row.status).toBe(outcome);
      // A no-op (activate while active) leaves the campaign untouched.
      expect(row.updatedAt.getTime() === old.getTime()).toBe(outcome === status);
    } else {
      expect([res.status, res.body]).toEqual([400, errorBody(outcome)]);
      expect(row.status).toBe(status);
      expect(row.updatedAt).toEqual(old);
    }
  });

  test.each(['activate', 'pause', 'archive'])("%s on another organization's campaign → 404", async (action) => {
    const theirs = await insertCampaign(h.db, other, { status: 'active', reviewStatus: 'approved' });
    const res = await api('POST', `/v1/campaigns/${theirs.id}/${action}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
    expect((await h.db.campaign.findUniqueOrThrow({ where: { id: theirs.id } })).status).toBe('active');
  });

  test('a malformed id → 404', async () => {
    const res = await api('POST', '/v1/campaigns/xyz/pause');
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'campaign_id')]);
  });
});

test('the OpenAPI document covers the campaign routes', async () => {
  const res = await call(h.url, 'GET', '/v1/openapi.json');
  const paths = res.body.paths;
  expect(Object.keys(paths['/v1/campaigns'])).toEqual(expect.arrayContaining(['get', 'post']));
  expect(Object.keys(paths['/v1/campaigns/{campaign_id}']).sort()).toEqual(['get', 'post']);
  for (const action of ['activate', 'pause', 'archive']) expect(paths[`/v1/campaigns/{campaign_id}/${action}`].post.responses['200']).toBeDefined();
  // One exploded form object, so that the document can say before and after are exclusive.
  const [query] = paths['/v1/campaigns'].get.parameters;
  expect([query.in, query.style, query.explode]).toEqual(['query', 'form', true]);
  expect(Object.keys(query.schema.properties)).toEqual(['limit', 'order', 'before', 'after', 'ad_account_id']);
  expect(query.schema.allOf).toEqual([{ not: { required: ['before', 'after'] } }]);
  expect(paths['/v1/campaigns/{campaign_id}'].post.requestBody.content['application/json'].schema.properties.budget).toBeDefined();
});
