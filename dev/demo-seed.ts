/**
 * A realistic delivery history for demos and benchmarks (`adctl demo seed`,
 * `npm run bench:insights`): several organizations with campaigns, ad groups
 * and ads in PostgreSQL (through Prisma directly), `impressions` own-supply
 * delivery rows spread over the last `days` UTC days (countries, devices, a
 * 2% click rate, CPM prices), and a partner's daily external-supply report.
 *
 * Delivery rows are generated inside ClickHouse (INSERT ... SELECT FROM
 * numbers()) in chunks: shipping ten million rows through JSON from Node
 * would take minutes on two cores. Their event ids are unique by
 * construction, so the insert-time dedup of insertDeliveryRows is not needed.
 */
import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, inList, literal } from '../lib/clickhouse/sql';
import type { Db } from '../lib/db';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { importExternalReport, type ExternalReportRow } from '../domain/delivery/external-supply';
import { createOrganization } from '../domain/organizations/service';

export interface DemoSeedOptions {
  days: number;
  impressions: number;
  organizations?: number;
  campaignsPerOrganization?: number;
  adGroupsPerCampaign?: number;
  adsPerAdGroup?: number;
  /** Rows per INSERT ... SELECT (progress is reported after each). */
  chunkRows?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Starts the review workflow of a campaign waiting for review (adctl passes the
   * Temporal client's); with it, each organization also gets one campaign in review,
   * so the reviewer queue has work on demo data.
   */
  startReview?: (campaign: { id: string; name: string; organizationId: string }) => Promise<unknown>;
}

export interface DemoSeedResult {
  organizations: number;
  /** The organizations made (adctl prints each with a sign-in link). */
  orgs: { id: string; publicId: string; name: string }[];
  campaigns: number;
  rows: number;
  /** The first organization's API key, for benchmarks that call the api. */
  api_keys: string[];
  ad_ids: string[];
}

interface AdPath {
  organization_id: string;
  ad_account_id: string;
  campaign_id: string;
  ad_group_id: string;
  ad_id: string;
}

const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', 'IN', 'JP', 'CA', 'ES', 'IT'];
const DEVICES = ['mobile', 'desktop', 'tablet'];
const DAY = 86_400;

async function createTree(
  db: Db,
  runId: string,
  o: number,
  options: Required<Pick<DemoSeedOptions, 'campaignsPerOrganization' | 'adGroupsPerCampaign' | 'adsPerAdGroup'>>,
) {
  const name = `Demo org ${o + 1} ${runId}`;
  const org = await createOrganization(db, { name, domain: `demo${o + 1}.example`, withAdAccount: true });
  const { id: organizationId } = await db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id }, select: { id: true } });
  const ads: AdPath[] = [];
  for (let c = 0; c < options.campaignsPerOrganization; c++) {
    const campaign = await db.campaign.create({
      data: {
        organizationId,
        adAccountId: org.ad_account_id,
        name: `Demo campaign ${c + 1} ${runId}`,
        status: 'active',
        reviewStatus: 'approved',
        startTime: new Date(),
        lifetimeSpendLimitMicros: 1_000_000_000_000n,
        recurringFrequency: 'daily',
        pricingModel: 'cpm',
        targetCountries: [],
      },
    });
    for (let g = 0; g < options.adGroupsPerCampaign; g++) {
      const group = await db.adGroup.create({
        data: { campaignId: campaign.id, name: `Ad group ${c + 1}.${g + 1}`, contextHints: ['demo'], creativeType: 'chat_card' },
      });
      for (let a = 0; a < options.adsPerAdGroup; a++) {
        const ad = await db.ad.create({
          data: { adGroupId: group.id, name: `Ad ${c + 1}.${g + 1}.${a + 1}`, creativeType: 'chat_card', title: 'Demo ad', body: 'Seeded for demos' },
        });
        ads.push({ organization_id: organizationId, ad_account_id: campaign.adAccountId, campaign_id: campaign.id, ad_group_id: group.id, ad_id: ad.id });
      }
    }
  }
  return { apiKey: org.api_key, organizationId, publicId: org.org_public_id, name, adAccountId: org.ad_account_id, ads };
}

/** A campaign as POST /v1/campaigns leaves it (paused, in review): a card and a poll, and its review workflow started. */
async function createCampaignInReview(
  db: Db,
  runId: string,
  tree: { organizationId: string; adAccountId: string },
  startReview: NonNullable<DemoSeedOptions['startReview']>,
) {
  const campaign = await db.campaign.create({
    data: {
      organizationId: tree.organizationId,
      adAccountId: tree.adAccountId,
      name: `Demo campaign in review ${runId} ${randomBytes(2).toString('hex')}`,
      startTime: new Date(Date.now() + 2 * DAY * 1000),
      lifetimeSpendLimitMicros: 50_000_000n,
      recurringFrequency: 'daily',
      pricingModel: 'cpm',
      targetCountries: ['US'],
      adGroups: {
        create: [
          {
            name: 'Cards',
            contextHints: ['running shoes'],
            creativeType: 'chat_card',
            ads: {
              create: {
                name: 'Card',
                creativeType: 'chat_card',
                title: 'Run lighter',
                body: 'Demo shoes, 30% off',
                cta: 'Shop',
                targetUrl: 'https://demo.example/shoes',
              },
            },
          },
          {
            name: 'Polls',
            contextHints: ['marathon'],
            creativeType: 'poll',
            ads: {
              create: {
                name: 'Poll',
                creativeType: 'poll',
                title: 'How far do you run?',
                options: ['5 km', '10 km', 'Marathon'],
                targetUrl: 'https://demo.example/poll',
              },
            },
          },
        ],
      },
    },
  });
  await startReview({ id: campaign.id, name: campaign.name, organizationId: tree.organizationId });
}

/** `INSERT ... SELECT` of `count` delivery rows numbered from `offset`, spread evenly over [start, start + span). */
function deliveryInsert(database: string, runId: string, ads: AdPath[], offset: number, count: number, total: number, start: number, span: number): string {
  const column = (name: keyof AdPath) => literal(ads.map((a) => a[name]));
  // The ad of row n: a hash of n, so every ad gets about the same share of every hour.
  const pick = (name: keyof AdPath) => `arrayElement(${column(name)}, toUInt32(1 + cityHash64(n, 1) % ${ads.length}))`;
  return `INSERT INTO ${identifier(database)}.${DELIVERY_TABLES.rows}
      (event_id, event_type, event_time, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id, source, country, device, publisher_id, auction_id, impressions, clicks, spend_micros)
    SELECT concat(${literal(`demo-${runId}-`)}, toString(n)), 'impression',
      toDateTime(${literal(start)} + intDiv(n * ${literal(span)}, ${literal(total)}), 'UTC'),
      ${pick('organization_id')}, ${pick('ad_account_id')}, ${pick('campaign_id')}, ${pick('ad_group_id')}, ${pick('ad_id')},
      'own',
      arrayElement(${literal(COUNTRIES)}, toUInt32(1 + cityHash64(n, 2) % ${COUNTRIES.length})),
      arrayElement(${literal(DEVICES)}, toUInt32(1 + cityHash64(n, 3) % ${DEVICES.length})),
      ${literal(`demo-publisher-${runId}`)},
      concat('auction-', toString(n)),
      toInt64(1), toInt64(cityHash64(n, 4) % 50 = 0), toInt64(1000 + cityHash64(n, 5) % 9000)
    FROM (SELECT number + ${literal(offset)} AS n FROM system.numbers LIMIT ${literal(count)})`;
}

/**
 * The shared spend store as the trackers would have left it: each campaign's
 * own-supply charges (what the dashboard shows against the budget).
 */
async function recordDemoSpend(deps: { db: Db; ch: ClickHouseClient; database: string }, organizationIds: string[]) {
  const result = await deps.ch.query({
    query: `SELECT campaign_id, toString(sum(spend_micros)) AS spent, toString(sum(impressions)) AS impressions, toString(sum(clicks)) AS clicks
      FROM ${identifier(deps.database)}.${DELIVERY_TABLES.rows} WHERE organization_id IN ${inList(organizationIds)} GROUP BY campaign_id`,
    format: 'JSONEachRow',
  });
  const rows = await result.json<{ campaign_id: string; spent: string; impressions: string; clicks: string }>();
  await deps.db.campaignSpend.createMany({
    data: rows.map((r) => ({ campaignId: r.campaign_id, spentMicros: BigInt(r.spent), impressions: BigInt(r.impressions), clicks: BigInt(r.clicks) })),
  });
}

export async function seedDemo(deps: { db: Db; ch: ClickHouseClient; database: string }, options: DemoSeedOptions): Promise<DemoSeedResult> {
  const shape = {
    campaignsPerOrganization: options.campaignsPerOrganization ?? 4,
    adGroupsPerCampaign: options.adGroupsPerCampaign ?? 3,
    adsPerAdGroup: options.adsPerAdGroup ?? 3,
  };
  const organizations = options.organizations ?? 3;
  const runId = randomBytes(4).toString('hex');
  const trees = [];
  for (let o = 0; o < organizations; o++) trees.push(await createTree(deps.db, runId, o, shape));
  const ads = trees.flatMap((t) => t.ads);

  // Own supply: the last `days` whole UTC days, today included.
  const end = Math.floor(Date.now() / 1000 / DAY) * DAY + DAY;
  const start = end - options.days * DAY;
  const total = options.impressions;
  const chunk = options.chunkRows ?? 1_000_000;
  options.onProgress?.(0, total);
  for (let offset = 0; offset < total; offset += chunk) {
    const count = Math.min(chunk, total - offset);
    await deps.ch.command({ query: deliveryInsert(deps.database, runId, ads, offset, count, total, start, options.days * DAY) });
    options.onProgress?.(offset + count, total);
  }

  // External supply: a partner's daily rows for every other ad, about a tenth of own volume.
  const perAdDay = Math.max(1, Math.round(total / 10 / (ads.length / 2) / options.days));
  const external: ExternalReportRow[] = [];
  for (let d = 0; d < options.days; d++) {
    const date = new Date((start + d * DAY) * 1000).toISOString().slice(0, 10);
    ads.forEach((ad, i) => {
      if (i % 2 !== 0) return;
      external.push({ date, ad_id: ad.ad_id, impressions: perAdDay, clicks: Math.round(perAdDay / 60), spend_micros: BigInt(perAdDay * 4000) });
    });
  }
  await importExternalReport(deps, `demo-${runId}`, external);
  await recordDemoSpend(deps, [...new Set(ads.map((a) => a.organization_id))]);
  if (options.startReview) for (const tree of trees) await createCampaignInReview(deps.db, runId, tree, options.startReview);

  return {
    organizations,
    orgs: trees.map((t) => ({ id: t.organizationId, publicId: t.publicId, name: t.name })),
    campaigns: organizations * (shape.campaignsPerOrganization + (options.startReview ? 1 : 0)),
    rows: total,
    api_keys: trees.map((t) => t.apiKey),
    ad_ids: ads.map((a) => a.ad_id),
  };
}
