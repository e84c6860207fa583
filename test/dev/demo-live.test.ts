/**
 * `adctl demo seed` is enough to make the demo chat fill with our own ads: each
 * organization's first campaign is live (approved ads with a landing page and
 * the account's logo) on a topic the demo chat suggests. Asked as the demo chat
 * asks (its canned reply included), each topic gets its campaign's ad, and a
 * conversation about none of them gets none of the demo's ads. The live
 * campaigns target a country of their own here (other test files' auctions
 * never see them) and are paused afterwards.
 */
import { createAssetStore } from '../../lib/asset-store';
import { createClickhouse } from '../../lib/clickhouse/client';
import { config } from '../../lib/config';
import { seedDemo, type DemoSeedResult } from '../../dev/demo-seed';
import { adRequest, contextualRequest, useAuction } from '../auction/support';
import { until } from '../support/wait';

const COUNTRY = 'MC';
const h = useAuction();
const ch = createClickhouse();
let seeded: DemoSeedResult;

beforeAll(async () => {
  seeded = await seedDemo(
    { db: h.db, ch, database: config.clickhouse.database },
    {
      days: 1,
      impressions: 30,
      organizations: 3,
      campaignsPerOrganization: 1,
      adGroupsPerCampaign: 1,
      adsPerAdGroup: 1,
      store: createAssetStore(),
      liveCountries: [COUNTRY],
    },
  );
  await until(() => seeded.ad_ids.every((id) => h.auction.deps.catalog.ads.some((a) => a.adId === id)), 'the demo ads in the index');
}, 60_000);

afterAll(async () => {
  await h.db.campaign.updateMany({ where: { organizationId: { in: seeded?.orgs.map((o) => o.id) ?? [] } }, data: { status: 'paused' } });
  await ch.close();
});

/** The demo chat's conversation: the user's question and its canned reply (dev/demo-chat/page.html). */
const demoChat = (text: string) => [
  { role: 'user', content: text },
  {
    role: 'assistant',
    content: `Good question. About “${text}”: start small, follow a tested recipe, and note what you change each time so you learn what works.`,
  },
];
const ask = async (text: string) => (await adRequest(h, contextualRequest({ country_code: COUNTRY, messages: demoChat(text) }))).body;

test.each([
  ['Which houseplants survive a dark apartment?', 'Plants that like the dark'],
  ['How do I pull a good espresso shot at home?', 'Café espresso at home'],
  ['Is commuting by bike in the rain a bad idea?', 'Ride to work, dry'],
])('%s gets the live campaign of its topic', async (question, title) => {
  const answer = await ask(question);
  expect(answer.ad).toMatchObject({ format: 'sponsored_message', headline: title });
  // A text placement: the account's generated logo, stored as an asset.
  expect(answer.ad.logo_url).toMatch(/\/assets\/[0-9a-f]{64}\.png$/);
});

test('a conversation about none of the topics gets none of the demo ads', async () => {
  const answer = await ask('How do I file my taxes as a freelancer?');
  expect(answer.ad).toBeNull();
});
