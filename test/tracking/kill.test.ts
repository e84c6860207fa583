/**
 * SIGKILL the api in the middle of an impression burst. An impression is
 * answered only once committed to the ledger, so after a restart every
 * answered impression is in ClickHouse (the worker exports the ledger), none
 * twice, and replaying the whole burst counts only what was never recorded.
 */
import pLimit from 'p-limit';
import { startApiProcess, type ServiceProcess } from '../../dev/processes';
import { once } from 'node:events';
import { createClickhouse } from '../../lib/clickhouse/client';
import { inList, sql } from '../../lib/clickhouse/sql';
import { newOrg, useHarness } from '../support/harness';
import { allExported, clickhouseTotals, deliverableCampaign, spendOf, trackerUrl } from './support';

let api: ServiceProcess | undefined;
afterAll(async () => {
  await api?.stop();
});
const h = useHarness();

const env = { NODE_ENV: 'test', DELIVERY_EXPORT_INTERVAL_MS: '100' };

test('no answered impression is lost, none is counted twice', async () => {
  const org = await newOrg(h.db);
  const c = await deliverableCampaign(h.db, org, { limitMicros: 1_000_000_000n });
  const views = Array.from({ length: 1500 }, () => c.claims(2_000_000)).map((claims) => {
    const url = new URL(trackerUrl('http://x', 'view', claims));
    return { auctionId: claims.auction_id, path: url.pathname + url.search };
  });

  api = await startApiProcess(env);
  const first = api;
  const answered = new Set<string>();
  const limit = pLimit(32);
  await Promise.all(
    views.map((v) =>
      limit(async () => {
        if (first.child.exitCode !== null || first.child.signalCode !== null) return;
        try {
          const res = await fetch(`${first.url}${v.path}`);
          await res.arrayBuffer();
          if (res.status === 200) answered.add(v.auctionId);
          if (answered.size === 400) first.child.kill('SIGKILL');
        } catch {
          /* the process died under this request: no answer */
        }
      }),
    ),
  );
  if (first.child.exitCode === null && first.child.signalCode === null) await once(first.child, 'exit');
  expect(first.child.signalCode).toBe('SIGKILL');
  expect(answered.size).toBeGreaterThanOrEqual(400);
  expect(answered.size).toBeLessThan(views.length);

  // Every answered impression is in the ledger once.
  const recorded = await h.db.deliveryLedger.findMany({ where: { campaignId: c.campaign.id }, select: { auctionId: true } });
  const recordedIds = new Set(recorded.map((r) => r.auctionId));
  expect(recorded.length).toBe(recordedIds.size);
  for (const id of answered) expect(recordedIds.has(id)).toBe(true);

  // Restarted: replaying the burst records only what the killed process never committed; the worker exports it all.
  api = await startApiProcess(env);
  const second = api;
  await Promise.all(views.map((v) => limit(async () => expect((await fetch(`${second.url}${v.path}`)).status).toBe(200))));
  await allExported(h.db, c.campaign.id);

  const spend = await spendOf(h.db, c.campaign.id);
  expect(spend.impressions).toBe(BigInt(views.length));
  expect(spend.spent).toBe(BigInt(views.length) * 2000n);
  expect(await clickhouseTotals(c.campaign.id)).toEqual({ rows: views.length, impressions: views.length, clicks: 0, spend: spend.spent });
  const ch = createClickhouse();
  try {
    const rs = await ch.query({
      query: `SELECT count() AS n, uniqExact(event_id) AS distinct_ids FROM delivery_events WHERE ${sql`campaign_id = ${c.campaign.id}`} AND auction_id IN ${inList([...answered])}`,
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([{ n: answered.size, distinct_ids: answered.size }]);
  } finally {
    await ch.close();
  }
}, 240_000);
