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
import { until } from '../support/wait';
import { signDeliveryToken, TRACKING_PATHS, type DeliveryClaims, type DeliveryTokenKind } from '../../domain/delivery/tracking-token';
import { insertTree } from '../support/fixtures';
import { awaitingExport, EXPORT_LOCK } from '../../jobs/delivery-exporter';
import { deliveryExportJob } from '../../jobs/delivery-export';

export type Claims = Omit<DeliveryClaims, 'kind'>;

/** An approved, active campaign (CPM by default) with one ad; its claims as an in-house win. */
export async function deliverableCampaign(
  db: Db,
  org: { org_public_id: string },
  o: { limitMicros?: bigint; pricingModel?: 'cpm' | 'cpc'; maxBidMicros?: bigint } = {},
) {
  const tree = await insertTree(db, org, {
    campaign: {
      status: 'active',
      reviewStatus: 'approved',
      startTime: new Date(Date.now() - 60_000),
      lifetimeSpendLimitMicros: o.limitMicros ?? 5_000_000n,
      pricingModel: o.pricingModel ?? 'cpm',
    },
    adGroup: { maxBidMicros: o.maxBidMicros ?? 2_000_000n },
  });
  const claims = (price: number, extra: Partial<Claims> = {}): Claims => ({
    auction_id: randomUUID(),
    publisher_id: randomUUID(),
    price_micros: price,
    source: 'inhouse',
    ad_id: tree.ad.id,
    ad_group_id: tree.adGroup.id,
    campaign_id: tree.campaign.id,
    organization_id: tree.campaign.organizationId,
    ad_account_id: tree.campaign.adAccountId,
    pricing_model: tree.campaign.pricingModel as 'cpm' | 'cpc',
    ...(tree.campaign.pricingModel === 'cpc' ? { cpc_micros: Number(tree.adGroup.maxBidMicros) } : {}),
    country: 'DE',
    device: 'mobile',
    ...extra,
  });
  return { ...tree, claims };
}

export function trackerUrl(baseUrl: string, kind: DeliveryTokenKind, claims: Claims, ttlSeconds = 3600): string {
  return `${baseUrl}${TRACKING_PATHS[kind]}?token=${signDeliveryToken({ ...claims, kind }, ttlSeconds)}`;
}

/** The same token with one character of its claims changed: a forgery. */
export function tampered(url: string): string {
  const u = new URL(url);
  const [kid, exp, shared, ...rest] = u.searchParams.get('token')!.split('.');
  const flipped = shared.slice(0, 10) + (shared[10] === 'A' ? 'B' : 'A') + shared.slice(11);
  u.searchParams.set('token', [kid, exp, flipped, ...rest].join('.'));
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
/**
 * A campaign's deliveries in ClickHouse: its distinct raw rows, and the counts
 * and spend of the hourly rollup (what insights read), where an event sent
 * twice would count twice.
 */
export async function clickhouseTotals(campaignId: string) {
  const ch = createClickhouse();
  const one = async <T>(query: string) => (await (await ch.query({ query, format: 'JSONEachRow' })).json<T>())[0];
  try {
    const raw = await one<{ rows: number }>(sql`SELECT count() AS rows FROM delivery_events FINAL WHERE campaign_id = ${campaignId}`);
    const r = await one<{ impressions: number; clicks: number; spend: number }>(
      sql`SELECT sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend FROM delivery_hourly WHERE campaign_id = ${campaignId}`,
    );
    return { rows: Number(raw.rows), impressions: Number(r.impressions), clicks: Number(r.clicks), spend: BigInt(r.spend) };
  } finally {
    await ch.close();
  }
}

export const get = (url: string, method = 'GET') => fetch(url, { method, redirect: 'manual' });

/**
 * Exports the campaign's committed deliveries and waits until the export has
 * passed them all: another exporter (another test file's, same database) may
 * have the turn, and ours then skips it.
 */
export async function exportedToClickhouse(h: Harness, campaignId: string) {
  await h.runJob(deliveryExportJob);
  await allExported(h.db, campaignId);
}

/** Waits until the export (whichever process has the turn) has passed every ledger row of the campaign. */
export const allExported = (db: Db, campaignId: string) => until(async () => (await awaitingExport(db, campaignId)) === 0, 'every delivery exported', 30_000);

/**
 * As if an exporter had been killed after sending the campaign's rows and
 * before moving its cursor: the cursor goes back to just before them, and what
 * it had passed is marked pending (taken under the export's lock, so no
 * exporter is mid-batch meanwhile).
 */
export async function replayExport(db: Db, campaignId: string) {
  await db.$transaction([
    db.$queryRaw`SELECT pg_advisory_xact_lock(${EXPORT_LOCK})::text AS locked`,
    db.$executeRaw`UPDATE delivery_export_cursor c SET pending_txid = c.txid, pending_seq = c.seq, txid = first.txid, seq = first.seq - 1
      FROM (SELECT txid, seq FROM delivery_ledger WHERE campaign_id = ${campaignId} ORDER BY txid, seq LIMIT 1) first WHERE c.id = 1`,
  ]);
}
