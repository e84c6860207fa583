/**
 * What delivery-tracking tests share: a campaign tree to deliver, the signed
 * tracker URLs the auction would hand out for it, and reads of the ledger,
 * the spend store and ClickHouse.
 */
import { randomUUID } from 'node:crypto';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import type { Db } from '../../lib/db';
import type { Harness } from '../support/harness';
import { until } from '../auction/support';
import { signDeliveryToken, TRACKING_PATHS, type DeliveryClaims, type DeliveryTokenKind } from '../../domain/delivery/tracking-token';
import { insertTree } from '../support/fixtures';

export type Claims = Omit<DeliveryClaims, 'kind'>;

/** An approved, active campaign (CPM by default) with one ad; its claims as an in-house win. */
export async function deliverableCampaign(db: Db, org: { org_public_id: string }, o: { limitMicros?: bigint; pricingModel?: 'cpm' | 'cpc'; maxBidMicros?: bigint } = {}) {
  const tree = await insertTree(db, org, {
    campaign: {
      status: 'active', reviewStatus: 'approved', startTime: new Date(Date.now() - 60_000),
      lifetimeSpendLimitMicros: o.limitMicros ?? 5_000_000n, pricingModel: o.pricingModel ?? 'cpm',
    },
    adGroup: { maxBidMicros: o.maxBidMicros ?? 2_000_000n },
  });
  const claims = (price: number, extra: Partial<Claims> = {}): Claims => ({
    auction_id: randomUUID(), publisher_id: randomUUID(), price_micros: price, source: 'inhouse',
    ad_id: tree.ad.id, ad_group_id: tree.adGroup.id, campaign_id: tree.campaign.id,
    organization_id: tree.campaign.organizationId, ad_account_id: tree.campaign.adAccountId,
    pricing_model: tree.campaign.pricingModel as 'cpm' | 'cpc',
    ...(tree.campaign.pricingModel === 'cpc' ? { cpc_micros: Number(tree.adGroup.maxBidMicros) } : {}),
    country: 'DE', device: 'mobile', ...extra,
  });
  return { ...tree, claims };
}

export function trackerUrl(baseUrl: string, kind: DeliveryTokenKind, claims: Claims, ttlSeconds = 3600): string {
  return `${baseUrl}${TRACKING_PATHS[kind]}?token=${signDeliveryToken({ ...claims, kind }, ttlSeconds)}`;
}

/** The same token with one payload character changed: a forgery. */
export function tampered(url: string): string {
  const u = new URL(url);
  const [kid, body, sig] = u.searchParams.get('token')!.split('.');
  const flipped = body.slice(0, 10) + (body[10] === 'A' ? 'B' : 'A') + body.slice(11);
  u.searchParams.set('token', `${kid}.${flipped}.${sig}`);
  return u.toString();
}

export async function spendOf(db: Db, campaignId: string) {
  const row = await db.campaignSpend.findUnique({ where: { campaignId } });
  return { spent: row?.spentMicros ?? 0n, impressions: row?.impressions ?? 0n, clicks: row?.clicks ?? 0n, exhaustedAt: row?.exhaustedAt ?? null };
}

export async function ledgerRows(db: Db, auctionIds: string[]) {
  return db.deliveryLedger.findMany({ where: { auctionId: { in: auctionIds } }, orderBy: { seq: 'asc' } });
}

/** delivery_events rows of one campaign, summed (FINAL: a re-sent row must not count twice). */
export async function clickhouseTotals(campaignId: string) {
  const ch = createClickhouse();
  try {
    const rs = await ch.query({
      query: sql`SELECT count() AS rows, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend
                 FROM delivery_events FINAL WHERE campaign_id = ${campaignId}`,
      format: 'JSONEachRow',
    });
    const [r] = await rs.json<{ rows: number; impressions: number; clicks: number; spend: number }>();
    return { rows: Number(r.rows), impressions: Number(r.impressions), clicks: Number(r.clicks), spend: BigInt(r.spend) };
  } finally {
    await ch.close();
  }
}

export const get = (url: string, method = 'GET') => fetch(url, { method, redirect: 'manual' });

/**
 * Exports the campaign's committed deliveries and waits until they are all
 * marked exported: another api's exporter (another test file's, same database)
 * may hold some of them mid-batch, and ours skips locked rows.
 */
export async function exportedToClickhouse(h: Harness, campaignId: string) {
  await h.delivery.exporter.runNow();
  await until(async () => (await h.db.deliveryLedger.count({ where: { campaignId, exportedAt: null } })) === 0, 'every delivery exported', 30_000);
}
