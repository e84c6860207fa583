/**
 * A NUL character in any string is refused with 400 `invalid_value` naming the
 * field (issue 7, item 6); PostgreSQL text cannot hold it, so it used to be a 500.
 */
import { createMember } from '../domain/organizations/service';
import { insertTree, organizationIdOf } from './support/fixtures';
import { apiClient, call, errorBody, newOrg, useHarness } from './support/harness';

const h = useHarness();
let org: Awaited<ReturnType<typeof newOrg>>;
beforeAll(async () => {
  org = await newOrg(h.db);
});

const NUL = 'abc\u0000def';
const api = apiClient(
  () => h,
  () => org,
);

const campaignBody = (overrides: Record<string, unknown> = {}, ad: Record<string, unknown> = {}) => ({
  name: `Nul campaign ${Date.now()}-${Math.random()}`,
  budget: { lifetime_spend_limit_micros: 25_000_000 },
  ad_groups: [{ context_hints: ['running'], ads: [{ creative: { type: 'chat_card', title: 'Run', ...ad } }] }],
  ...overrides,
});

test.each([
  ['name', campaignBody({ name: NUL })],
  ['description', campaignBody({ description: NUL })],
  ['ad_groups[0].ads[0].creative.title', campaignBody({}, { title: NUL })],
  ['ad_groups[0].ads[0].creative.body', campaignBody({}, { body: NUL })],
  ['ad_groups[0].context_hints[0]', campaignBody({ ad_groups: [{ context_hints: [NUL], ads: [{ creative: { type: 'chat_card', title: 'x' } }] }] })],
])('POST /v1/campaigns: NUL in %s is 400 invalid_value on it', async (param, body) => {
  const res = await api('POST', '/v1/campaigns', body);
  expect(res.status).toBe(400);
  expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', param));
});

test('an unknown key holding NUL is named too', async () => {
  const res = await api('POST', '/v1/campaigns', campaignBody({ ['bad\u0000key']: 1 }));
  expect(res.status).toBe(400);
  expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'bad\u0000key'));
});

test('updates, ad groups and ads refuse NUL', async () => {
  const organizationId = await organizationIdOf(h.db, org);
  const { campaign, adGroup, ad } = await insertTree(h.db, organizationId);

  const campaignUpdate = await api('POST', `/v1/campaigns/${campaign.id}`, { name: NUL });
  expect(campaignUpdate.status).toBe(400);
  expect(campaignUpdate.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'name'));

  const groupCreate = await api('POST', '/v1/ad_groups', {
    campaign_id: campaign.id,
    name: 'G',
    context_hints: ['ok', NUL],
    ads: [{ creative: { type: 'chat_card', title: 'T' } }],
  });
  expect(groupCreate.status).toBe(400);
  expect(groupCreate.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'context_hints[1]'));

  const groupUpdate = await api('POST', `/v1/ad_groups/${adGroup.id}`, { name: NUL });
  expect(groupUpdate.status).toBe(400);
  expect(groupUpdate.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'name'));

  const adCreate = await api('POST', '/v1/ads', { ad_group_id: adGroup.id, creative: { type: 'chat_card', title: 'T', cta: NUL } });
  expect(adCreate.status).toBe(400);
  expect(adCreate.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'creative.cta'));

  const adUpdate = await api('POST', `/v1/ads/${ad.id}`, { name: NUL });
  expect(adUpdate.status).toBe(400);
  expect(adUpdate.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'name'));

  // Nothing changed.
  expect((await h.db.campaign.findUniqueOrThrow({ where: { id: campaign.id } })).name).toBe(campaign.name);
});

test('query strings: list filters and pagination cursors', async () => {
  const filter = await api('GET', `/v1/campaigns?ad_account_id=${encodeURIComponent(NUL)}`);
  expect(filter.status).toBe(400);
  expect(filter.body).toEqual(errorBody('invalid_value', 'invalid_request_error', 'ad_account_id'));

  const cursor = await api('GET', `/v1/campaigns?after=${encodeURIComponent(NUL)}`);
  expect(cursor.status).toBe(400);
  expect(cursor.body.error.code).toBe('invalid_value');

  // An id with a NUL is just a malformed id: 404, as any other (docs/api-behaviour.md: malformed ids).
  const adsFilter = await api('GET', `/v1/ads?ad_group_id=${encodeURIComponent(NUL)}`);
  expect(adsFilter.status).toBe(404);
  expect(adsFilter.body.error.code).toBe('not_found');
});

test('the platform surface: minting a key named with NUL', async () => {
  const owner = await createMember(h.db, await organizationIdOf(h.db, org), 'owner');
  const res = await call(h.url, 'POST', `/api/organizations/${org.org_public_id}/api-keys/`, { token: owner.session_token, body: { name: NUL } });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_value', param: 'name' } });
});
