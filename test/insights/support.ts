/**
 * Delivery data for insights tests: campaign trees of a fresh organization in
 * PostgreSQL and delivery rows written through the same insert function the
 * trackers use (so the rollups are fed by their materialized views).
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse } from '../../lib/clickhouse/client';
import { config } from '../../lib/config';
import { insertDeliveryRows, type DeliveryRow } from '../../domain/delivery/rows';
import { insertAd, insertAdGroup, insertCampaign, organizationIdOf } from '../support/fixtures';
import { call, newOrg, type Harness } from '../support/harness';

export const database = () => config.clickhouse.database;
export const clickhouse = (): ClickHouseClient => createClickhouse();

export interface SeededAd {
  organizationId: string;
  adAccountId: string;
  campaignId: string;
  adGroupId: string;
  adId: string;
}

export interface Tenant {
  org: Awaited<ReturnType<typeof newOrg>>;
  organizationId: string;
  adAccountId: string;
  /** campaigns[c].groups[g].ads[a] */
  ads: SeededAd[];
  get(path: string, query?: Record<string, string | string[] | object | object[]>): Promise<{ status: number; body: any }>;
}

/** An organization with `campaigns` x `groups` x `ads` entities (names from the fixtures). */
export async function newTenant(h: Harness, shape = { campaigns: 1, groups: 1, ads: 1 }): Promise<Tenant> {
  const org = await newOrg(h.db);
  const organizationId = await organizationIdOf(h.db, org);
  const ads: SeededAd[] = [];
  let adAccountId = '';
  for (let c = 0; c < shape.campaigns; c++) {
    const campaign = await insertCampaign(h.db, org);
    adAccountId = campaign.adAccountId;
    for (let g = 0; g < shape.groups; g++) {
      const group = await insertAdGroup(h.db, campaign.id);
      for (let a = 0; a < shape.ads; a++) {
        const ad = await insertAd(h.db, group.id);
        ads.push({ organizationId, adAccountId: campaign.adAccountId, campaignId: campaign.id, adGroupId: group.id, adId: ad.id });
      }
    }
  }
  if (!adAccountId) {
    adAccountId = (await h.db.adAccount.findFirstOrThrow({ where: { organizationId, isDefault: true } })).id;
  }
  return {
    org,
    organizationId,
    adAccountId,
    ads,
    get: (path, query = {}) => call(h.url, 'GET', `${path}${queryString(query)}`, { token: org.api_key }),
  };
}

/** `name[]` parameters repeat; objects are sent as JSON strings (the spec's convention). */
export function queryString(query: Record<string, string | string[] | object | object[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A delivery row of `ad` at `time` (ISO or Date); counts default to one impression. */
export function row(ad: SeededAd, time: string | Date, counts: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    event_id: randomUUID(),
    event_type: 'impression',
    event_time: typeof time === 'string' ? new Date(time) : time,
    organization_id: ad.organizationId,
    ad_account_id: ad.adAccountId,
    campaign_id: ad.campaignId,
    ad_group_id: ad.adGroupId,
    ad_id: ad.adId,
    source: 'own',
    country: 'DE',
    device: 'mobile',
    publisher_id: 'pub_test',
    auction_id: randomUUID(),
    impressions: 1,
    clicks: 0,
    spend_micros: 0,
    ...counts,
  };
}

export const insertRows = (ch: ClickHouseClient, rows: DeliveryRow[]) => insertDeliveryRows(ch, database(), rows);

export const unix = (iso: string) => Date.parse(iso) / 1000;
