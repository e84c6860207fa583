/**
 * auction/catalog.ts: the index keeps up with changes however slow a reload
 * is. Changes arrive by the real LISTEN/NOTIFY channel; the index read is made
 * slow (as a large index is) by a wrapper around the real read.
 */
import { Client } from 'pg';
import { Catalog } from '../../auction/catalog';
import { INDEX_PAGE_SIZE, loadIndexedAds, type IndexScope } from '../../auction/inhouse/ad-index';
import { config } from '../../lib/config';
import { createDb, type Db } from '../../lib/db';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { sleep, until } from '../support/wait';

const db = createDb(undefined, 2);
const notifier = new Client({ connectionString: config.databaseUrl });
beforeAll(() => notifier.connect());
afterAll(async () => {
  await notifier.end();
  await db.$disconnect();
});

const RELOAD_MS = 400;

/** The database, with each publisher read's time recorded. */
function countingPublishersDb(publisherReads: number[]): Db {
  const publishers = new Proxy(db.publisher, {
    get(publisher, key) {
      if (key !== 'findMany') return Reflect.get(publisher, key);
      return (args: Parameters<Db['publisher']['findMany']>[0]) => {
        publisherReads.push(Date.now());
        return publisher.findMany(args);
      };
    },
  });
  return new Proxy(db, { get: (target, key) => (key === 'publisher' ? publishers : Reflect.get(target, key)) });
}

/** The real index read, with every whole reload slowed by RELOAD_MS. */
async function slowIndexRead(scope?: IndexScope) {
  if (!scope) await sleep(RELOAD_MS);
  return loadIndexedAds(db, INDEX_PAGE_SIZE, scope);
}

test('changes that keep coming while a reload runs are gathered into the next reload, not queued one by one', async () => {
  const publisherReads: number[] = [];
  const catalog = new Catalog(countingPublishersDb(publisherReads), { safetyReloadMs: 3_600_000, loadAds: slowIndexRead });
  await catalog.start();
  try {
    // A second of ad changes, one every 20 ms, each worth a reload that takes RELOAD_MS.
    for (let i = 0; i < 50; i += 1) {
      await notifier.query(`NOTIFY auction_index, 'ads'`);
      await sleep(20);
    }
    // What a whole reload costs here besides the added RELOAD_MS (the test database's index, on a loaded machine).
    const realStart = Date.now();
    await loadIndexedAds(db);
    const real = Date.now() - realStart;
    const changed = Date.now();
    await notifier.query(`NOTIFY auction_index, 'publishers'`);
    await until(() => publisherReads.some((t) => t >= changed), 'the publishers reload', 10_000);
    const waited = publisherReads.find((t) => t >= changed)! - changed;
    // At most the reload running then and the one gathering the rest: a queue of a reload per
    // debounce window (the first second alone held ~20) would hold the publisher change 20 reloads.
    expect(waited).toBeLessThan(3 * (RELOAD_MS + 2 * real) + 500);
  } finally {
    await catalog.close();
  }
}, 30_000);

test('a change to one campaign or ad account reloads only its ads, with the rest of the index kept', async () => {
  const scopedReads: IndexScope[] = [];
  const catalog = new Catalog(db, {
    safetyReloadMs: 3_600_000,
    loadAds: (scope) => {
      if (scope) scopedReads.push(scope);
      return loadIndexedAds(db, INDEX_PAGE_SIZE, scope);
    },
  });
  await catalog.start();
  try {
    const org = await newOrg(db);
    const { campaign, ad } = await insertTree(db, org, { campaign: { status: 'active', reviewStatus: 'approved' } });
    await until(() => catalog.ads.some((a) => a.adId === ad.id), 'the new ad in the index');
    const before = catalog.ads.length;

    await db.campaign.update({ where: { id: campaign.id }, data: { status: 'paused' } });
    await until(() => !catalog.ads.some((a) => a.adId === ad.id), 'the paused campaign gone from the index');
    expect(scopedReads.some((scope) => scope.campaignIds.has(campaign.id))).toBe(true);
    // Everything else stayed (other suites may add or drop a few meanwhile).
    expect(catalog.ads.length).toBeGreaterThan(before - 20);

    await db.campaign.update({ where: { id: campaign.id }, data: { status: 'active' } });
    await until(() => catalog.ads.some((a) => a.adId === ad.id), 'the campaign back in the index');
    await db.adAccount.update({ where: { id: campaign.adAccountId }, data: { name: 'Renamed account' } });
    await until(() => catalog.ads.find((a) => a.adId === ad.id)?.advertiser === 'Renamed account', 'the account change in the index');
    expect(scopedReads.some((scope) => scope.adAccountIds.has(campaign.adAccountId))).toBe(true);
  } finally {
    await catalog.close();
  }
}, 30_000);
