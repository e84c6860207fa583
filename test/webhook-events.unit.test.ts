/** Which changes raise which webhook events (domain/webhooks/events.ts, domain/serving/issue-events.ts), and the signature a receiver checks (signature.ts). */
import { createHmac } from 'node:crypto';
import { webhookEventsOf, type ChangeForEvents } from '../domain/webhooks/events';
import { signatureHeader, verifyWebhookSignature } from '../domain/webhooks/signature';
import { issueEvents } from '../domain/serving/issue-events';

const campaign = (action: string, before: object | null, after: object | null): ChangeForEvents => ({
  organizationId: 'org-1',
  entityType: 'campaign',
  entityId: 'c-1',
  action,
  before: before as Record<string, unknown>,
  after: after as Record<string, unknown>,
});

test.each([
  [campaign('reviewed', { review_status: 'in_review' }, { review_status: 'approved', review_reason: null }), 'campaign.review_approved', null],
  [campaign('reviewed', { review_status: 'in_review' }, { review_status: 'rejected', review_reason: 'misleading' }), 'campaign.review_rejected', 'misleading'],
  [campaign('activated', { status: 'paused' }, { status: 'active' }), 'campaign.activated', null],
  [campaign('paused', { status: 'active' }, { status: 'paused' }), 'campaign.paused', null],
  [campaign('completed', {}, { lifecycle_state: 'completed', lifecycle_reason: 'ended' }), 'campaign.completed', 'ended'],
  [campaign('completed', {}, { lifecycle_state: 'completed', lifecycle_reason: 'budget_exhausted' }), 'campaign.budget_exhausted', 'budget_exhausted'],
  [campaign('blocked', {}, { lifecycle_state: 'blocked', lifecycle_reason: 'counterfeit' }), 'campaign.blocked', 'counterfeit'],
])('%# %s', (change, type, reason) => {
  expect(webhookEventsOf(change)).toEqual([
    {
      organizationId: 'org-1',
      type,
      orderingKey: 'c-1',
      data: { entity_type: 'campaign', entity_id: 'c-1', campaign_id: 'c-1', reason, previous: change.before, current: change.after },
    },
  ]);
});

test("an ad's verdict goes in its campaign's order; keys in their own; edits raise nothing", () => {
  const ad = {
    organizationId: 'o',
    entityType: 'ad',
    entityId: 'a-1',
    campaignId: 'c-9',
    action: 'reviewed',
    before: {},
    after: { creative_review_status: 'rejected', creative_review_reason: 'blurry' },
  };
  expect(webhookEventsOf(ad)).toMatchObject([{ type: 'ad.review_rejected', orderingKey: 'c-9', data: { campaign_id: 'c-9', reason: 'blurry' } }]);
  const key = { organizationId: 'o', entityType: 'api_key', entityId: 'k-1', action: 'rotated_out', before: {}, after: {} };
  expect(webhookEventsOf(key)).toMatchObject([{ type: 'api_key.rotated', orderingKey: 'api_key:k-1', data: { campaign_id: null } }]);
  expect(webhookEventsOf(campaign('updated', { name: 'a' }, { name: 'b' }))).toEqual([]);
  expect(webhookEventsOf({ ...campaign('activated', {}, {}), organizationId: null })).toEqual([]);
});

describe('signatures', () => {
  const body = '{"id":"evt_1"}';
  const now = 1_800_000_000;

  test("Stripe's scheme: t=..., v1=HMAC-SHA256(secret, `${t}.${body}`), one v1 per secret", () => {
    const expected = createHmac('sha256', 'whsec_a').update(`${now}.${body}`).digest('hex');
    const header = signatureHeader(['whsec_a', 'whsec_b'], now, body);
    expect(header.split(',')).toEqual([`t=${now}`, `v1=${expected}`, expect.stringMatching(/^v1=[0-9a-f]{64}$/)]);
    expect(verifyWebhookSignature(header, body, 'whsec_a', now)).toBe(true);
    expect(verifyWebhookSignature(header, body, 'whsec_b', now)).toBe(true);
  });

  test('a wrong secret, a changed body, an old timestamp or a malformed header fail', () => {
    const header = signatureHeader(['whsec_a'], now, body);
    expect(verifyWebhookSignature(header, body, 'whsec_x', now)).toBe(false);
    expect(verifyWebhookSignature(header, `${body} `, 'whsec_a', now)).toBe(false);
    expect(verifyWebhookSignature(header, body, 'whsec_a', now + 301)).toBe(false);
    expect(verifyWebhookSignature('v1=abc', body, 'whsec_a', now)).toBe(false);
    expect(verifyWebhookSignature(`t=${now},v1=zz`, body, 'whsec_a', now)).toBe(false);
  });
});

test('delivery issues: one that went is cleared, one that came appeared, one that stayed raises nothing', () => {
  const issue = (code: string, id = 'g-1') => ({
    key: `${code}:ad_group:${id}`,
    code,
    severity: 'blocking',
    message: `${code} text`,
    entity: { type: 'ad_group', id },
  });
  const events = issueEvents('org-1', 'c-1', [issue('outbid'), issue('no_ads')], [issue('no_ads'), issue('budget_low', 'g-2')]);
  expect(events).toEqual([
    {
      organizationId: 'org-1',
      type: 'campaign.delivery_issue_cleared',
      orderingKey: 'c-1',
      data: {
        entity_type: 'ad_group',
        entity_id: 'g-1',
        campaign_id: 'c-1',
        reason: 'outbid',
        previous: { code: 'outbid', severity: 'blocking', message: 'outbid text' },
        current: null,
      },
    },
    {
      organizationId: 'org-1',
      type: 'campaign.delivery_issue_appeared',
      orderingKey: 'c-1',
      data: {
        entity_type: 'ad_group',
        entity_id: 'g-2',
        campaign_id: 'c-1',
        reason: 'budget_low',
        previous: null,
        current: { code: 'budget_low', severity: 'blocking', message: 'budget_low text' },
      },
    },
  ]);
});
