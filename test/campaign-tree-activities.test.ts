import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { campaignTreeActivities } from '../activities/campaign-tree';
import { createAdAsset, assetKey } from '../domain/assets/ad-images';
import { templateGenerator } from '../domain/creatives/generator';
import { campaignCreateSchema } from '../domain/campaigns/campaign-schema';
import { parseOrThrow } from '../lib/validation';
import { createAssetStore, type AssetStore } from '../lib/asset-store';
import { closeDb, createDb } from '../lib/db';
import { insertAd, insertAdGroup, insertCampaign, organizationIdOf, uniquePng } from './support/fixtures';
import { newOrg } from './support/harness';

/** The saga's tree activities under failure: compensations that can be retried, and persists that come too late. */
const db = createDb(undefined, 3);
const store = createAssetStore();
afterAll(() => closeDb(db));

/** A store whose first `delete` fails, as an S3 blip would. */
function flakyStore(inner: AssetStore): AssetStore & { failures: number } {
  let failNext = true;
  return {
    failures: 0,
    put: (key, bytes) => inner.put(key, bytes),
    get: (key) => inner.get(key),
    exists: (key) => inner.exists(key),
    async delete(key) {
      if (failNext) {
        failNext = false;
        this.failures += 1;
        throw new Error('simulated store outage');
      }
      return inner.delete(key);
    },
  };
}

test('deleteCampaignTree retried after a store failure removes the bytes too', async () => {
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const campaign = await insertCampaign(db, org);
  const group = await insertAdGroup(db, campaign.id);
  const { bytes, sha256 } = await uniquePng();
  const assetId = await db.$transaction((tx) =>
    createAdAsset(tx, store, organizationId, { bytes, sizeBytes: bytes.length, sha256, format: 'png', ext: 'png', mime: 'image/png', width: 1, height: 1 }),
  );
  await insertAd(db, group.id, { assetId });
  const key = assetKey({ sha256, ext: 'png' });
  expect(await store.exists(key)).toBe(true);

  const flaky = flakyStore(store);
  const activities = campaignTreeActivities({ db, assets: flaky, creatives: templateGenerator });
  await expect(activities.deleteCampaignTree(campaign.id)).rejects.toThrow('simulated store outage');
  expect(flaky.failures).toBe(1);
  await activities.deleteCampaignTree(campaign.id); // Temporal's retry

  expect(await store.exists(key)).toBe(false);
  expect(await db.asset.count({ where: { id: assetId } })).toBe(0);
  expect(await db.campaign.count({ where: { id: campaign.id } })).toBe(0);
});

test('a persist that arrives after its compensation never commits', async () => {
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const account = await db.adAccount.findFirstOrThrow({ where: { organizationId } });
  const activities = campaignTreeActivities({ db, assets: store, creatives: templateGenerator });
  const campaignId = randomUUID();
  const body = parseOrThrow(campaignCreateSchema, {
    name: `Late ${campaignId}`,
    budget: { lifetime_spend_limit_micros: 1_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Hello' } }] }],
  });

  await activities.deleteCampaignTree(campaignId); // the saga gave up on this id
  const late = activities.persistCampaignTree({ organizationId, adAccountId: account.id, campaignId, body });
  await expect(late).rejects.toBeInstanceOf(ApplicationFailure);
  await expect(late).rejects.toMatchObject({ type: 'abandoned', nonRetryable: true });
  expect(await db.campaign.count({ where: { id: campaignId } })).toBe(0);

  // The same body under a fresh id persists, so the refusal was the tombstone's doing.
  const fresh = randomUUID();
  await activities.persistCampaignTree({ organizationId, adAccountId: account.id, campaignId: fresh, body });
  expect(await db.adGroup.count({ where: { campaignId: fresh } })).toBe(1);
});
