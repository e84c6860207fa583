/**
 * The audit log (domain/audit/log.ts): changes made over /v1, the dashboard and adctl are
 * recorded in their own transaction with who, what and the changed fields before and after;
 * an organization reads only its own entries (GET /v1/audit_log, the dashboard's Activity),
 * operators read everything (`adctl audit`).
 */
import { randomUUID } from 'node:crypto';
import { csrfTokenFor } from '../lib/csrf';
import { adctl } from './support/cli';
import { insertCampaign, organizationIdOf } from './support/fixtures';
import { call, errorBody, useOrgs } from './support/harness';

const { h, org, other, api } = useOrgs();

const entriesOf = async (entityId: string, as = org) => {
  const res = await api('GET', `/v1/audit_log?entity_id=${entityId}&order=asc`, undefined, as);
  expect(res.status).toBe(200);
  return res.body.data as any[];
};
const activeKeyOf = async (o: typeof org) =>
  (await h.db.apiKey.findFirstOrThrow({ where: { organizationId: await organizationIdOf(h.db, o), isActive: true } })).publicId;

describe('GET /v1/audit_log', () => {
  test('a budget change shows with its before and after, by the key that made it', async () => {
    const campaign = await insertCampaign(h.db, org, { lifetimeSpendLimitMicros: 25_000_000n });
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, { budget: { lifetime_spend_limit_micros: 40_000_000 } });
    expect(res.status).toBe(200);
    const entries = await entriesOf(campaign.id);
    expect(entries).toEqual([
      {
        id: expect.any(String),
        object: 'audit_entry',
        entity_type: 'campaign',
        entity_id: campaign.id,
        action: 'updated',
        actor: { type: 'api_key', id: await activeKeyOf(org) },
        before: { lifetime_spend_limit_micros: 25_000_000 },
        after: { lifetime_spend_limit_micros: 40_000_000 },
        created_at: expect.any(Number),
      },
    ]);
    expect(Math.abs(entries[0].created_at - Date.now() / 1000)).toBeLessThan(60);
  });

  test('a status action records the status it replaced; an update that changes nothing records nothing', async () => {
    const campaign = await insertCampaign(h.db, org, { reviewStatus: 'approved', status: 'paused' });
    expect((await api('POST', `/v1/campaigns/${campaign.id}/activate`)).status).toBe(200);
    expect((await api('POST', `/v1/campaigns/${campaign.id}/activate`)).status).toBe(200); // already active: a no-op
    expect((await api('POST', `/v1/campaigns/${campaign.id}`, { name: campaign.name })).status).toBe(200);
    expect((await api('POST', `/v1/campaigns/${campaign.id}/pause`)).status).toBe(200);
    const entries = await entriesOf(campaign.id);
    expect(entries.map((e) => [e.action, e.before, e.after])).toEqual([
      ['activated', { status: 'paused' }, { status: 'active' }],
      ['paused', { status: 'active' }, { status: 'paused' }],
    ]);
  });

  test('a change that fails leaves no entry (the entry is in its transaction)', async () => {
    const taken = await insertCampaign(h.db, org);
    const campaign = await insertCampaign(h.db, org);
    const res = await api('POST', `/v1/campaigns/${campaign.id}`, { name: taken.name });
    expect([res.status, res.body]).toEqual([409, errorBody('name_conflict', 'invalid_request_error', 'name')]);
    expect(await entriesOf(campaign.id)).toEqual([]);
  });

  test('another organization never sees the entries; filters and pages like every list', async () => {
    const campaign = await insertCampaign(h.db, org);
    for (const limit of [1_000_000, 2_000_000, 3_000_000]) {
      expect((await api('POST', `/v1/campaigns/${campaign.id}`, { budget: { lifetime_spend_limit_micros: limit } })).status).toBe(200);
    }
    expect(await entriesOf(campaign.id, other)).toEqual([]);
    const first = await api('GET', `/v1/audit_log?entity_type=campaign&entity_id=${campaign.id}&limit=2`);
    expect(first.body).toMatchObject({ object: 'list', count: 2, has_more: true });
    expect(first.body.data.map((e: any) => e.after.lifetime_spend_limit_micros)).toEqual([3_000_000, 2_000_000]);
    const next = await api('GET', `/v1/audit_log?entity_id=${campaign.id}&limit=2&after=${first.body.last_id}`);
    expect(next.body).toMatchObject({ count: 1, has_more: false, data: [{ after: { lifetime_spend_limit_micros: 1_000_000 } }] });
    expect((await api('GET', `/v1/audit_log?entity_type=ad_group&entity_id=${campaign.id}`)).body.data).toEqual([]);
  });

  test.each([
    ['entity_type=bogus', 'entity_type'],
    ['entity_id=not-a-uuid', 'entity_id'],
    ['limit=501', 'limit'],
  ])('%s → 400 invalid_value', async (query, param) => {
    const res = await api('GET', `/v1/audit_log?${query}`);
    expect([res.status, res.body]).toEqual([400, errorBody('invalid_value', 'invalid_request_error', param)]);
  });

  test('an unknown cursor → 404 not_found', async () => {
    const res = await api('GET', `/v1/audit_log?after=${randomUUID()}`);
    expect([res.status, res.body]).toEqual([404, errorBody('not_found', 'invalid_request_error', 'after')]);
  });

  test('a campaign created through the saga: the campaign, its ad group and ad, by the key', async () => {
    const body = {
      name: `Audited ${randomUUID()}`,
      budget: { lifetime_spend_limit_micros: 12_000_000 },
      ad_groups: [{ name: 'Bakers', context_hints: ['sourdough'], ads: [{ creative: { type: 'chat_card', title: 'Bake', body: 'Bread', cta: 'Shop' } }] }],
    };
    const created = await api('POST', '/v1/campaigns', body);
    expect(created.status).toBe(201);
    const key = await activeKeyOf(org);
    const [campaignEntry] = await entriesOf(created.body.id);
    expect(campaignEntry).toMatchObject({
      action: 'created',
      actor: { type: 'api_key', id: key },
      before: null,
      after: { name: body.name, status: 'paused', review_status: 'in_review', lifetime_spend_limit_micros: 12_000_000 },
    });
    const group = (await api('GET', `/v1/ad_groups?campaign_id=${created.body.id}`)).body.data[0];
    const [groupEntry] = await entriesOf(group.id);
    expect(groupEntry).toMatchObject({ action: 'created', actor: { type: 'api_key', id: key }, after: { campaign_id: created.body.id, name: 'Bakers' } });
    const ad = (await api('GET', `/v1/ads?ad_group_id=${group.id}`)).body.data[0];
    expect((await entriesOf(ad.id))[0]).toMatchObject({ action: 'created', after: { ad_group_id: group.id, title: 'Bake' } });
    // The reviewer's verdict, recorded by the review workflow, is the reviewer's (an operator here).
    const approved = await adctl('review', 'approve', created.body.id);
    expect([approved.code, approved.stderr]).toEqual([0, '']);
    const reviewed = (await entriesOf(created.body.id)).find((e) => e.action === 'reviewed');
    expect(reviewed).toMatchObject({
      actor: { type: 'operator', id: process.env.SUDO_USER || process.env.USER || 'operator' },
      before: { review_status: 'in_review' },
      after: { review_status: 'approved' },
    });
  });
});

describe('the dashboard and adctl', () => {
  test("a member's website change is the member's; the Activity page reads it", async () => {
    const organizationId = await organizationIdOf(h.db, org);
    const member = await h.db.member.findFirstOrThrow({ where: { organizationId, role: 'owner' } });
    const headers = { cookie: `dashboard_session=${org.session_token}`, 'x-csrf-token': csrfTokenFor(org.session_token) };
    const url = `https://shop-${randomUUID().slice(0, 8)}.example`;
    const changed = await call(h.url, 'POST', '/dashboard/api/account', { headers, body: { url } });
    expect(changed.status).toBe(200);
    const read = await call(h.url, 'GET', `/dashboard/api/audit-log?entity_type=account&limit=1`, { headers });
    expect(read.status).toBe(200);
    expect(read.body.data[0]).toMatchObject({
      entity_type: 'account',
      entity_id: org.org_public_id,
      action: 'updated',
      actor: { type: 'dashboard_user', id: member.id },
      after: { website: url },
    });
  });

  test("an operator's block is the operator's; adctl audit reads every organization's", async () => {
    const campaign = await insertCampaign(h.db, other, { reviewStatus: 'approved' });
    const blocked = await adctl('review', 'block', campaign.id, '--reason', 'counterfeit goods');
    expect([blocked.code, blocked.stderr]).toEqual([0, '']);
    const run = await adctl('audit', '--entity', campaign.id);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout).entries).toEqual([
      expect.objectContaining({
        entity_type: 'campaign',
        entity_id: campaign.id,
        action: 'blocked',
        actor: { type: 'operator', id: process.env.SUDO_USER || process.env.USER || 'operator' },
        before: { lifecycle_state: null, lifecycle_reason: null },
        after: { lifecycle_state: 'blocked', lifecycle_reason: 'counterfeit goods' },
      }),
    ]);
    // The organization sees the operator's change to its campaign too.
    expect((await entriesOf(campaign.id, other)).map((e) => e.action)).toEqual(['blocked']);
  });

  test("the platform's own: a publisher created and its floor changed, a DSP's privacy declaration; secrets masked", async () => {
    const operator = { type: 'operator', id: process.env.SUDO_USER || process.env.USER || 'operator' };
    const created = await adctl('publisher', 'create', '--name', `Audited host ${randomUUID()}`);
    expect([created.code, created.stderr]).toEqual([0, '']);
    const { publisher_id } = JSON.parse(created.stdout);
    expect((await adctl('publisher', 'update', publisher_id, '--floor-cpm', '2')).code).toBe(0);
    // A DSP no auction loads (disabled), so that no test auction ever calls it.
    const dsp = await h.db.dsp.create({
      data: { name: 'Audited DSP', protocol: 'openrtb', bidUrl: 'https://dsp.invalid/bid', apiKey: 'dsp-secret', enabled: false },
    });
    expect((await adctl('dsp', 'update', dsp.id, '--tcf-vendor-id', '32')).code).toBe(0);
    const audit = async (...args: string[]) => JSON.parse((await adctl('audit', '--platform', ...args)).stdout).entries;
    const publisherEntries = await audit('--type', 'publisher', '--entity', publisher_id);
    expect(publisherEntries.map((e: any) => [e.action, e.actor, e.before, e.after])).toEqual([
      ['updated', operator, { floor_micros: 0 }, { floor_micros: 2_000_000 }],
      ['created', operator, null, expect.objectContaining({ key_hash: '[redacted]', floor_micros: 0 })],
    ]);
    expect(await audit('--entity', dsp.id)).toEqual([
      expect.objectContaining({ entity_type: 'dsp', action: 'updated', actor: operator, before: { tcf_vendor_id: null }, after: { tcf_vendor_id: 32 } }),
    ]);
    // No organization sees the platform's entries.
    expect(await entriesOf(dsp.id)).toEqual([]);
  });

  test('adctl audit refuses a bad filter with the usage (exit 2)', async () => {
    const run = await adctl('audit', '--type', 'bogus');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^adctl: --type must be one of campaign, ad_group/);
  });
});
