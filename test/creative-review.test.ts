/**
 * Edited creatives go back to review (issue 7, item 3): on an approved
 * campaign a new ad or a changed creative waits for a reviewer while the last
 * approved version keeps serving; reviewers see what changed and approve or
 * reject that revision (`adctl review pending|approve-ad|reject-ad`) through
 * the per-ad review workflow on the Temporal dev server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { reviewActivities } from '../activities/review';
import { assetKey } from '../domain/assets/ad-images';
import { servableCreative } from '../domain/creatives/review';
import { createAssetStore } from '../lib/asset-store';
import { createTemporalClient } from '../lib/temporal';
import { creativeReviewWorkflowId, pendingRevisionQuery } from '../workflows/creative-review';
import { adctl } from './support/cli';
import { insertAd, insertAdGroup, insertCampaign, uniquePng } from './support/fixtures';
import { apiClient, newOrg, useHarness } from './support/harness';
import { until } from './support/wait';

const h = useHarness();
let org: Awaited<ReturnType<typeof newOrg>>;
const temporal = createTemporalClient();
const store = createAssetStore();
let imageServer: http.Server;
let imageBase: string;
const images = new Map<string, Buffer>();
const reviewIds: string[] = [];

beforeAll(async () => {
  org = await newOrg(h.db);
  imageServer = http.createServer((req, res) => {
    const bytes = images.get(req.url ?? '');
    if (bytes) res.writeHead(200, { 'content-type': 'image/png' }).end(bytes);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.allSettled(reviewIds.map((id) => temporal.workflow.getHandle(creativeReviewWorkflowId(id)).terminate('test cleanup')));
  await temporal.connection.close();
  imageServer.closeAllConnections();
  await new Promise((resolve) => imageServer.close(resolve));
});

const api = apiClient(
  () => h,
  () => org,
);
const served = async (adId: string) => servableCreative(await h.db.ad.findUniqueOrThrow({ where: { id: adId } }));

/** One JSON object from a successful adctl run. */
async function adctlJson(...args: string[]) {
  const run = await adctl(...args);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout);
}

/** An active campaign approved through the review activity (as the review workflow records it), with one card ad. */
async function approvedCampaign() {
  const campaign = await insertCampaign(h.db, org, { status: 'active' });
  const adGroup = await insertAdGroup(h.db, campaign.id);
  const ad = await insertAd(h.db, adGroup.id, { title: 'Run faster', body: 'Light shoes', cta: 'Shop' });
  await reviewActivities(h.db, store).setReviewStatus(campaign.id, 'approved', null);
  reviewIds.push(ad.id);
  return { campaign, adGroup, ad };
}

async function workflowRevision(adId: string): Promise<number> {
  return temporal.workflow.getHandle(creativeReviewWorkflowId(adId)).query(pendingRevisionQuery);
}

test('approving a campaign approves its ads as they stand', async () => {
  const { ad } = await approvedCampaign();
  expect(await served(ad.id)).toEqual({
    type: 'chat_card',
    title: 'Run faster',
    body: 'Light shoes',
    cta: 'Shop',
    options: [],
    target_url: null,
    image: null,
  });
});

test('a changed creative waits for review; the approved version serves until a reviewer approves the change', async () => {
  const { campaign, ad } = await approvedCampaign();
  const res = await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Bait', body: 'and switch', cta: 'Shop' } });
  expect(res.status).toBe(200);
  // The advertiser reads back what they sent; review_status stays the campaign's, as the spec says.
  expect(res.body).toMatchObject({ id: ad.id, review_status: 'approved', creative: { title: 'Bait', body: 'and switch' } });
  // What may serve is still the approved version.
  expect((await served(ad.id))?.title).toBe('Run faster');
  const row = await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } });
  expect([row.creativeRevision, row.creativeReviewStatus]).toEqual([2, 'pending']);
  // The review workflow knows of revision 2.
  expect(await workflowRevision(ad.id)).toBe(2);

  // Reviewers see what serves, what waits and what differs.
  const { pending } = await adctlJson('review', 'pending', '--campaign', campaign.id);
  expect(pending).toEqual([
    expect.objectContaining({
      ad_id: ad.id,
      campaign_id: campaign.id,
      revision: 2,
      changed: ['title', 'body'],
      serving: expect.objectContaining({ title: 'Run faster', body: 'Light shoes' }),
      proposed: expect.objectContaining({ title: 'Bait', body: 'and switch' }),
    }),
  ]);

  const approved = await adctlJson('review', 'approve-ad', ad.id);
  expect(approved).toMatchObject({ ad_id: ad.id, revision: 2, creative_review_status: 'approved' });
  expect((await served(ad.id))?.title).toBe('Bait');
  expect(await temporal.workflow.getHandle(creativeReviewWorkflowId(ad.id)).result()).toBe('approved');
  expect((await adctlJson('review', 'pending', '--campaign', campaign.id)).pending).toEqual([]);
});

test('a rejected change leaves the approved version serving', async () => {
  const { ad } = await approvedCampaign();
  await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Miracle cure' } });
  const rejected = await adctlJson('review', 'reject-ad', ad.id, '--reason', 'misleading');
  expect(rejected).toMatchObject({ creative_review_status: 'rejected' });
  expect((await served(ad.id))?.title).toBe('Run faster');
  expect((await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } })).creativeReviewReason).toBe('misleading');
});

test('a new ad on an approved campaign serves only once approved', async () => {
  const { adGroup } = await approvedCampaign();
  const res = await api('POST', '/v1/ads', { ad_group_id: adGroup.id, creative: { type: 'chat_card', title: 'Brand new' } });
  expect(res.status).toBe(201);
  reviewIds.push(res.body.id);
  expect(await served(res.body.id)).toBeNull();
  expect(await workflowRevision(res.body.id)).toBe(1);
  const { pending } = await adctlJson('review', 'pending', '--campaign', adGroup.campaignId);
  expect(pending).toContainEqual(expect.objectContaining({ ad_id: res.body.id, serving: null, changed: ['new ad'] }));
  await adctlJson('review', 'approve-ad', res.body.id);
  expect((await served(res.body.id))?.title).toBe('Brand new');
});

test('new ads of a new ad group on an approved campaign wait too', async () => {
  const { campaign } = await approvedCampaign();
  const res = await api('POST', '/v1/ad_groups', {
    campaign_id: campaign.id,
    name: 'Later',
    context_hints: ['x'],
    ads: [{ creative: { type: 'chat_card', title: 'Later ad' } }],
  });
  expect(res.status).toBe(201);
  const [ad] = await h.db.ad.findMany({ where: { adGroupId: res.body.id } });
  reviewIds.push(ad.id);
  expect(await served(ad.id)).toBeNull();
  expect(ad.creativeReviewStatus).toBe('pending');
  expect(await workflowRevision(ad.id)).toBe(1);
});

test('only the revision the reviewer saw can be approved', async () => {
  const { ad } = await approvedCampaign();
  await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Seen by reviewer' } });
  await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Switched after' } });
  const stale = await adctlJson('review', 'approve-ad', ad.id, '--revision', '2');
  expect(stale).toMatchObject({ creative_review_status: 'stale', current_revision: 3 });
  expect((await served(ad.id))?.title).toBe('Run faster');
  await adctlJson('review', 'approve-ad', ad.id, '--revision', '3');
  expect((await served(ad.id))?.title).toBe('Switched after');
});

test('poll fields and images count as changes; the approved image stays stored while a new one waits', async () => {
  const campaign = await insertCampaign(h.db, org, { status: 'active' });
  const polls = await insertAdGroup(h.db, campaign.id, { creativeType: 'poll' });
  const poll = await insertAd(h.db, polls.id, { creativeType: 'poll', title: 'Best shoe?', options: ['A', 'B'], targetUrl: 'https://example.com/a' });
  const cards = await insertAdGroup(h.db, campaign.id);
  const first = await uniquePng();
  images.set('/first.png', first.bytes);
  const card = await api('POST', '/v1/ads', { ad_group_id: cards.id, creative: { type: 'chat_card', title: 'Pic', image_url: `${imageBase}/first.png` } });
  expect(card.status).toBe(201);
  await reviewActivities(h.db, store).setReviewStatus(campaign.id, 'approved', null);
  reviewIds.push(poll.id, card.body.id);

  await api('POST', `/v1/ads/${poll.id}`, { creative: { type: 'poll', title: 'Best shoe?', options: ['A', 'B'], target_url: 'https://evil.example/phish' } });
  expect((await served(poll.id))?.target_url).toBe('https://example.com/a');
  expect((await h.db.ad.findUniqueOrThrow({ where: { id: poll.id } })).creativeReviewStatus).toBe('pending');

  const second = await uniquePng();
  images.set('/second.png', second.bytes);
  await api('POST', `/v1/ads/${card.body.id}`, { creative: { type: 'chat_card', title: 'Pic', image_url: `${imageBase}/second.png` } });
  expect((await served(card.body.id))?.image?.sha256).toBe(first.sha256);
  expect(await store.exists(assetKey({ sha256: first.sha256, ext: 'png' }))).toBe(true);
  const { pending } = await adctlJson('review', 'pending', '--campaign', campaign.id);
  expect(pending.find((p: { ad_id: string }) => p.ad_id === card.body.id).changed).toEqual(['image']);

  await adctlJson('review', 'approve-ad', card.body.id);
  expect((await served(card.body.id))?.image?.sha256).toBe(second.sha256);
  // The replaced image is no longer served by anything: its bytes go, right after the verdict's commit
  // (the CLI answers once the row shows the verdict, which can be before the removal finished).
  await until(async () => !(await store.exists(assetKey({ sha256: first.sha256, ext: 'png' }))), 'the replaced image removed', 10_000);
});

test('a name change or an identical creative is no change', async () => {
  const { ad } = await approvedCampaign();
  await api('POST', `/v1/ads/${ad.id}`, { name: 'Renamed' });
  await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } });
  const row = await h.db.ad.findUniqueOrThrow({ where: { id: ad.id } });
  expect([row.creativeRevision, row.creativeReviewStatus]).toEqual([1, 'approved']);
});

test('edits before the campaign verdict need no review of their own', async () => {
  const campaign = await insertCampaign(h.db, org);
  const adGroup = await insertAdGroup(h.db, campaign.id);
  const ad = await insertAd(h.db, adGroup.id);
  await api('POST', `/v1/ads/${ad.id}`, { creative: { type: 'chat_card', title: 'Edited in review' } });
  expect(await served(ad.id)).toBeNull();
  await expect(workflowRevision(ad.id)).rejects.toThrow();
  await reviewActivities(h.db, store).setReviewStatus(campaign.id, 'approved', null);
  expect((await served(ad.id))?.title).toBe('Edited in review');
});
