/**
 * A realistic delivery history for demos and benchmarks (`adctl demo seed`,
 * `npm run bench:insights`): several organizations with campaigns, ad groups
 * and ads in PostgreSQL (through Prisma directly), `impressions` own-supply
 * delivery rows spread over the last `days` UTC days (countries, devices, a
 * 2% click rate, CPM prices), and a partner's daily external-supply report.
 *
 * Delivery rows are generated inside ClickHouse (INSERT ... SELECT FROM
 * numbers()) in chunks, already in the raw table's key order, two INSERTs at
 * once: shipping rows through JSON from Node, or letting ClickHouse sort each
 * block, would make 100 million rows an hour's work. They go into
 * `delivery_events` as the trackers' rows do, so the materialized views fill
 * every rollup from the same rows. Their event ids are unique by
 * construction, so the insert-time dedup of insertDeliveryRows is not needed.
 */
import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, inList, literal } from '../lib/clickhouse/sql';
import type { Db } from '../lib/db';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { importExternalReport, type ExternalReportRow } from '../domain/delivery/external-supply';
import { createOrganization } from '../domain/organizations/service';
import { updateAccount } from '../domain/ad-accounts/settings';
import type { ApprovedCreative } from '../domain/creatives/review';
import type { AssetStore } from '../lib/asset-store';
import sharp from 'sharp';

export interface DemoSeedOptions {
  days: number;
  impressions: number;
  organizations?: number;
  campaignsPerOrganization?: number;
  adGroupsPerCampaign?: number;
  adsPerAdGroup?: number;
  /** Rows per INSERT ... SELECT (progress is reported after each). */
  chunkRows?: number;
  /** INSERTs running at once (default 2, the cores of the dev machine). */
  parallel?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Starts the review workflow of a campaign waiting for review (adctl passes the
   * Temporal client's); with it, each organization also gets one campaign in review,
   * so the reviewer queue has work on demo data.
   */
  startReview?: (campaign: { id: string; name: string; organizationId: string }) => Promise<unknown>;
  /**
   * Where the accounts' logos go (adctl passes the asset store). With it, each
   * organization's first campaign is live: approved ads with a landing page and
   * the account's logo, on a topic of the demo chat, so its ads serve there.
   */
  store?: AssetStore;
  /** The countries the live campaigns target (default: all). */
  liveCountries?: string[];
}

/**
 * The live campaigns' topics, one per organization in turn: what the demo chat
 * suggests asking about (dev/demo-chat/page.html). Hints as advertisers write them.
 */
const LIVE_TOPICS = [
  {
    name: 'Houseplants',
    hints: ['houseplants', 'low light houseplants', 'indoor plants'],
    ad: { title: 'Plants that like the dark', body: 'Snake plants, ZZ plants and pothos, potted and delivered.', cta: 'Shop plants' },
    path: 'plants',
    color: '#2f7d4f',
  },
  {
    name: 'Home espresso',
    hints: ['espresso', 'espresso machine', 'espresso shot'],
    ad: { title: 'Café espresso at home', body: 'A dual-boiler machine and a burr grinder, set up for you.', cta: 'See machines' },
    path: 'espresso',
    color: '#6b4226',
  },
  {
    name: 'Bike commuting',
    hints: ['commuting by bike', 'city bikes'],
    ad: { title: 'Ride to work, dry', body: 'City bikes with fenders, lights and a rack, ready to ride.', cta: 'Find a bike' },
    path: 'bikes',
    color: '#1f5f9f',
  },
] as const;

/** A plain logo (a disc on the topic's colour): PNG bytes, made here so the demo needs no file. */
const logoPng = (color: string) =>
  sharp({ create: { width: 256, height: 256, channels: 3, background: color } })
    .composite([{ input: Buffer.from('<svg width="256" height="256"><circle cx="128" cy="128" r="80" fill="#ffffff"/></svg>') }])
    .png()
    .toBuffer();

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
  options: Required<Pick<DemoSeedOptions, 'campaignsPerOrganization' | 'adGroupsPerCampaign' | 'adsPerAdGroup'>> &
    Pick<DemoSeedOptions, 'store' | 'liveCountries'>,
) {
  const name = `Demo org ${o + 1} ${runId}`;
  const org = await createOrganization(db, { name, domain: `demo${o + 1}.example`, withAdAccount: true });
  const { id: organizationId } = await db.organization.findUniqueOrThrow({ where: { publicId: org.org_public_id }, select: { id: true } });
  const topic = LIVE_TOPICS[o % LIVE_TOPICS.length];
  if (options.store)
    await updateAccount({ db, store: options.store }, organizationId, { url: `https://demo${o + 1}.example`, logo: { file: await logoPng(topic.color) } });
  const ads: AdPath[] = [];
  for (let c = 0; c < options.campaignsPerOrganization; c++) {
    const live = c === 0 && options.store !== undefined;
    const campaign = await db.campaign.create({
      data: {
        organizationId,
        adAccountId: org.ad_account_id,
        name: live ? `${topic.name} ${runId}` : `Demo campaign ${c + 1} ${runId}`,
        status: 'active',
        reviewStatus: 'approved',
        startTime: new Date(),
        lifetimeSpendLimitMicros: 1_000_000_000_000n,
        recurringFrequency: 'daily',
        pricingModel: 'cpm',
        targetCountries: live ? (options.liveCountries ?? []) : [],
      },
    });
    for (let g = 0; g < options.adGroupsPerCampaign; g++) {
      const group = await db.adGroup.create({
        data: { campaignId: campaign.id, name: `Ad group ${c + 1}.${g + 1}`, contextHints: live ? [...topic.hints] : ['demo'], creativeType: 'chat_card' },
      });
      for (let a = 0; a < options.adsPerAdGroup; a++) {
        const ad = await db.ad.create({
          data: { adGroupId: group.id, name: `Ad ${c + 1}.${g + 1}.${a + 1}`, ...(live ? liveCreative(topic, o) : DEMO_CREATIVE) },
        });
        ads.push({ organization_id: organizationId, ad_account_id: campaign.adAccountId, campaign_id: campaign.id, ad_group_id: group.id, ad_id: ad.id });
      }
    }
  }
  return { apiKey: org.api_key, organizationId, publicId: org.org_public_id, name, adAccountId: org.ad_account_id, ads };
}

const DEMO_CREATIVE = { creativeType: 'chat_card', title: 'Demo ad', body: 'Seeded for demos' } as const;

/** A live campaign's ad: its creative, approved as it is (what a reviewer's approval leaves), with a landing page. */
function liveCreative(topic: (typeof LIVE_TOPICS)[number], o: number) {
  const creative = { type: 'chat_card' as const, ...topic.ad, options: [], target_url: `https://demo${o + 1}.example/${topic.path}`, image: null };
  return {
    creativeType: 'chat_card',
    title: creative.title,
    body: creative.body,
    cta: creative.cta,
    targetUrl: creative.target_url,
    creativeReviewStatus: 'approved',
    approvedCreative: creative satisfies ApprovedCreative,
    approvedRevision: 1,
  };
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

/** One campaign's share of the delivery rows: its entity path, its ads, and the row numbers `[first, first + rows)`. */
interface CampaignRows {
  organization_id: string;
  ad_account_id: string;
  campaign_id: string;
  ads: AdPath[];
  first: number;
  rows: number;
}

/**
 * The rows split evenly between campaigns, numbered in the raw table's sort
 * order (organization, ad account, campaign, then time): each INSERT then
 * writes rows already sorted by the table's key, which ClickHouse detects and
 * does not sort again (sorting blocks by five string columns was most of a seed).
 */
function campaignShares(ads: AdPath[], total: number): CampaignRows[] {
  const byCampaign = new Map<string, AdPath[]>();
  for (const ad of ads) byCampaign.set(ad.campaign_id, [...(byCampaign.get(ad.campaign_id) ?? []), ad]);
  const key = (a: AdPath) => [a.organization_id, a.ad_account_id, a.campaign_id].join('\u0000');
  const campaigns = [...byCampaign.values()].sort((a, b) => (key(a[0]) < key(b[0]) ? -1 : key(a[0]) > key(b[0]) ? 1 : 0));
  return campaigns.map((campaignAds, k) => {
    const first = Math.floor((total * k) / campaigns.length);
    const { organization_id, ad_account_id, campaign_id } = campaignAds[0];
    return { organization_id, ad_account_id, campaign_id, ads: campaignAds, first, rows: Math.floor((total * (k + 1)) / campaigns.length) - first };
  });
}

/**
 * `INSERT ... SELECT` of rows `[offset, offset + count)`. Row n belongs to
 * campaign k (the last whose first row is at most n), its time grows with n
 * over [start, start + span) within the campaign's rows, and its event id is
 * n zero-padded: the rows come out in the table's key order.
 */
function deliveryInsert(database: string, runId: string, campaigns: CampaignRows[], offset: number, count: number, start: number, span: number): string {
  const of = (values: (string | number)[]) => `arrayElement(${literal(values)}, k)`;
  const ads = campaigns.flatMap((c) => c.ads);
  const adOffsets = campaigns.map((_, k) => campaigns.slice(0, k).reduce((sum, c) => sum + c.ads.length, 0));
  // The ad of row n: a hash of n, so every ad of the campaign gets about the same share of every hour.
  const adIndex = `toUInt32(1 + ${of(adOffsets)} + cityHash64(n, 1) % ${of(campaigns.map((c) => c.ads.length))})`;
  const pick = (name: keyof AdPath) => `arrayElement(${literal(ads.map((a) => a[name]))}, ${adIndex})`;
  return `INSERT INTO ${identifier(database)}.${DELIVERY_TABLES.rows}
      (event_id, event_type, event_time, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id, source, country, device, publisher_id, auction_id, impressions, clicks, spend_micros)
    SELECT concat(${literal(`demo-${runId}-`)}, substring(toString(1000000000000 + n), 2)), 'impression',
      toDateTime(${literal(start)} + intDiv((n - ${of(campaigns.map((c) => c.first))}) * ${literal(span)}, ${of(campaigns.map((c) => c.rows))}), 'UTC'),
      ${of(campaigns.map((c) => c.organization_id))}, ${of(campaigns.map((c) => c.ad_account_id))}, ${of(campaigns.map((c) => c.campaign_id))},
      ${pick('ad_group_id')}, ${pick('ad_id')},
      'own',
      arrayElement(${literal(COUNTRIES)}, toUInt32(1 + cityHash64(n, 2) % ${COUNTRIES.length})),
      arrayElement(${literal(DEVICES)}, toUInt32(1 + cityHash64(n, 3) % ${DEVICES.length})),
      ${literal(`demo-publisher-${runId}`)},
      concat('auction-', toString(n)),
      toInt64(1), toInt64(cityHash64(n, 4) % 50 = 0), toInt64(1000 + cityHash64(n, 5) % 9000)
    FROM (SELECT n, arrayCount(f -> f <= n, ${literal(campaigns.map((c) => c.first))}) AS k
          FROM (SELECT number + ${literal(offset)} AS n FROM system.numbers LIMIT ${literal(count)}))`;
}

/**
 * The rows in chunks of `chunkRows`, `parallel` INSERTs at a time (one
 * INSERT ... SELECT keeps about one core busy); progress after each chunk.
 */
async function insertDeliveryRowsInChunks(
  deps: { ch: ClickHouseClient; database: string },
  runId: string,
  campaigns: CampaignRows[],
  window: { start: number; span: number },
  options: { chunkRows: number; parallel: number; total: number; onProgress?: DemoSeedOptions['onProgress'] },
) {
  let done = 0;
  let next = 0;
  options.onProgress?.(0, options.total);
  const worker = async () => {
    while (next < options.total) {
      const offset = next;
      const count = Math.min(options.chunkRows, options.total - offset);
      next += count;
      await deps.ch.command({
        query: deliveryInsert(deps.database, runId, campaigns, offset, count, window.start, window.span),
        // One part per chunk: fewer, larger parts for the background merges to fold.
        clickhouse_settings: { min_insert_block_size_rows: String(options.chunkRows), min_insert_block_size_bytes: String(1 << 30) },
      });
      done += count;
      options.onProgress?.(done, options.total);
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, worker));
}

/**
 * The shared spend store as the trackers would have left it: each campaign's
 * own-supply charges (what the dashboard shows against the budget), summed
 * from the daily rollup the materialized view filled (the raw rows hold the
 * same sums; the rollup is thousands of rows where they are millions).
 */
async function recordDemoSpend(deps: { db: Db; ch: ClickHouseClient; database: string }, organizationIds: string[]) {
  const result = await deps.ch.query({
    query: `SELECT campaign_id, toString(sum(spend_micros)) AS spent, toString(sum(impressions)) AS impressions, toString(sum(clicks)) AS clicks
      FROM ${identifier(deps.database)}.${DELIVERY_TABLES.daily} WHERE organization_id IN ${inList(organizationIds)} AND source = 'own' GROUP BY campaign_id`,
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
  for (let o = 0; o < organizations; o++)
    trees.push(await createTree(deps.db, runId, o, { ...shape, store: options.store, liveCountries: options.liveCountries }));
  const ads = trees.flatMap((t) => t.ads);

  // Own supply: the last `days` whole UTC days, today included.
  const end = Math.floor(Date.now() / 1000 / DAY) * DAY + DAY;
  const start = end - options.days * DAY;
  const total = options.impressions;
  await insertDeliveryRowsInChunks(
    deps,
    runId,
    campaignShares(ads, total),
    { start, span: options.days * DAY },
    { chunkRows: options.chunkRows ?? 1_000_000, parallel: options.parallel ?? 2, total, onProgress: options.onProgress },
  );

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
