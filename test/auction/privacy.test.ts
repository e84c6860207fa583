/**
 * The chat host's privacy signals end to end (issue 48), against the real
 * auction, reference DSPs on loopback, PostgreSQL and ClickHouse: each signal
 * reaches the captured OpenRTB BidRequest; without consent for personalized
 * ads the DSPs get the contextual-only request (no user id, the IP cut to its
 * /24 or /48) and no user key is kept; minors get no ad; a DSP without consent
 * that cannot bid without it is not called; malformed strings are 400s naming
 * the field. Consent strings are encoded by IAB Tech Lab's libraries.
 */
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { readDeliveryToken } from '../../domain/delivery/tracking-token';
import { updatePublisherSettings } from '../../domain/publishers/settings';
import { gppString, gppTcfCanada, gppWithTcString, tcString } from '../support/consent-strings';
import { eventually } from '../support/wait';
import { addReferenceDsp, adRequest, contextualRequest, dropReferenceDsp, loggedBids, startAuction, until, type AuctionHarness } from './support';
import type { ReferenceDsp } from '../../dev/reference-dsp/server';

type Ref = { dsp: ReferenceDsp; dspId: string };
let h: AuctionHarness;
/** A TCF vendor (id 755), one that is not (no vendor id), and one that cannot bid without consent (vendor 32): OpenRTB, no bids. */
let vendor: Ref;
let nonVendor: Ref;
let consentOnly: Ref;
let native: Ref;

beforeAll(async () => {
  // Only DSPs here: the in-house bidder's budget gate is closed.
  h = await startAuction({ budget: { mayServe: () => false } });
  vendor = await addReferenceDsp(h, 'openrtb', { noBidRate: 1 }, { tcfVendorId: 755 });
  nonVendor = await addReferenceDsp(h, 'openrtb', { noBidRate: 1 });
  consentOnly = await addReferenceDsp(h, 'openrtb', { noBidRate: 1 }, { tcfVendorId: 32, bidsWithoutConsent: false });
  native = await addReferenceDsp(h, 'native', { noBidRate: 1 });
});
afterAll(async () => {
  for (const ref of [vendor, nonVendor, consentOnly, native]) await dropReferenceDsp(h, ref);
  await h.close();
});
beforeEach(() => {
  for (const ref of [vendor, nonVendor, consentOnly, native]) ref.dsp.received.length = 0;
});

const request = (o: Record<string, unknown> = {}) => contextualRequest({ userId: 'user-anon-7', ip: '203.0.113.9', ...o });
/** What one DSP received for the auction's bid call (undefined: not called). */
const bidCall = (ref: Ref) => ref.dsp.received.find((r) => r.path === '/openrtb' || r.path === '/native/bid');

async function auction(body: Record<string, unknown>) {
  const res = await adRequest(h, body);
  expect(res.status).toBe(200);
  return res;
}

test('each signal reaches the OpenRTB BidRequest as its 2.6 field; a consented vendor gets the personalized request', async () => {
  const consent = tcString({ purposes: [1, 3, 4], vendors: [755] });
  const gpp = gppString({ usnat: { SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2 } });
  await auction(request({ regs: { gdpr: 1, gpp, gpp_sid: [7], us_privacy: '1YNN', coppa: 0 }, user: { consent, age_group: 'adult' } }));
  const br = bidCall(vendor)!.body;
  expect(br.regs).toEqual({ gdpr: 1, gpp, gpp_sid: [7], us_privacy: '1YNN', coppa: 0 });
  expect(br.user).toEqual({ id: 'user-anon-7', consent, ext: { consent } });
  expect(br.device.ip).toBe('203.0.113.9');
  // The same auction: a DSP without the user's consent (GDPR applies, it is no TCF vendor) gets the contextual-only request.
  const other = bidCall(nonVendor)!.body;
  expect(other.regs).toEqual({ gdpr: 1, gpp, gpp_sid: [7], us_privacy: '1YNN', coppa: 0 });
  expect(other.user).toEqual({ consent, ext: { consent } });
  expect(other.device.ip).toBe('203.0.113.0');
  // Vendor 32 has no consent and declared it cannot bid without: not called, and logged as such.
  expect(bidCall(consentOnly)).toBeUndefined();
});

test("GPP's TCF sections: a tcfeuv2 publisher restriction takes a vendor's consent away; tcfcav1 (TCF Canada) needs the vendor's express consent", async () => {
  const restricted = gppWithTcString(tcString({ purposes: [1, 3, 4], vendors: [755], restrictPurposeOne: [755] }));
  await auction(request({ country_code: 'DE', regs: { gpp: restricted } }));
  expect(bidCall(vendor)!.body).toMatchObject({ regs: { gdpr: 1, gpp: restricted }, device: { ip: '203.0.113.0' } });
  expect(bidCall(vendor)!.body.user?.id).toBeUndefined();
  expect(bidCall(consentOnly)).toBeUndefined();

  for (const ref of [vendor, nonVendor, consentOnly]) ref.dsp.received.length = 0;
  const canada = gppTcfCanada({ purposes: [1, 3, 4], vendors: [755] });
  await auction(request({ country_code: 'CA', regs: { gpp: canada } }));
  expect(bidCall(vendor)!.body).toMatchObject({ regs: { gdpr: 0, gpp: canada }, user: { id: 'user-anon-7' }, device: { ip: '203.0.113.9' } });
  // No vendor id, so no consent of its own: the contextual-only request; vendor 32 (no consent, cannot bid without) is not called.
  expect(bidCall(nonVendor)!.body.user?.id).toBeUndefined();
  expect(bidCall(nonVendor)!.body.device.ip).toBe('203.0.113.0');
  expect(bidCall(consentOnly)).toBeUndefined();
});

test('regs.gdpr follows the country when the host sends nothing: in the EEA no TC string means contextual only', async () => {
  await auction(request({ country_code: 'DE' }));
  const br = bidCall(vendor)!.body;
  expect(br.regs).toEqual({ gdpr: 1 });
  expect(br).not.toHaveProperty('user');
  expect(br.device.ip).toBe('203.0.113.0');
  // Outside, nothing changes: the user id and the whole IP.
  vendor.dsp.received.length = 0;
  await auction(request({ country_code: 'US' }));
  expect(bidCall(vendor)!.body).toMatchObject({ regs: { gdpr: 0 }, user: { id: 'user-anon-7' }, device: { ip: '203.0.113.9' } });
  // The host's own regs.gdpr wins over the country.
  vendor.dsp.received.length = 0;
  await auction(request({ country_code: 'DE', regs: { gdpr: 0 } }));
  expect(bidCall(vendor)!.body).toMatchObject({ regs: { gdpr: 0 }, user: { id: 'user-anon-7' } });
});

/** A counter of the auction's /metrics (what Prometheus scrapes), 0 before its first count. */
async function counter(series: string): Promise<number> {
  const text = await h.auction.deps.metrics.registry.metrics();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.split(' ')
      .pop() ?? 0,
  );
}
const contextualOnly = (reason: string) => counter(`auction_contextual_only_total{reason="${reason}"}`);

describe('no consent for personalized ads: every DSP gets the contextual-only request', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['TCF without purpose 3 and 4', { country_code: 'FR', user: { consent: tcString({ purposes: [1], vendors: [755] }) } }, 'tcf_purposes'],
    ['a GPP usnat opt-out of targeted advertising', { regs: { gpp: gppString({ usnat: { TargetedAdvertisingOptOut: 1 } }) } }, 'gpp_opt_out'],
    ['a GPP state (usca) opt-out of sale', { regs: { gpp: gppString({ usca: { SaleOptOut: 1 } }) } }, 'gpp_opt_out'],
    ['a US Privacy opt-out', { regs: { us_privacy: '1YYN' } }, 'us_privacy_opt_out'],
  ])('%s: no user id, the IP cut to its /24; the native userId scoped to the conversation; counted by its reason', async (_label, signals, reason) => {
    const before = { reason: await contextualOnly(reason), auctions: await counter('auction_requests_total{result="no_fill"}') };
    const res = await auction(request({ ...signals, chatId: 'chat-privacy-1' }));
    // The contextual-only share's numerator and denominator: this auction in both, under its reason.
    expect(await contextualOnly(reason)).toBe(before.reason + 1);
    expect(await counter('auction_requests_total{result="no_fill"}')).toBe(before.auctions + 1);
    for (const ref of [vendor, nonVendor]) {
      const br = bidCall(ref)!.body;
      expect(br.user?.id).toBeUndefined();
      expect(br.device).toMatchObject({ ip: '203.0.113.0' });
    }
    const call = bidCall(native)!;
    expect(call.body.userId).toMatch(/^ctx-[A-Za-z0-9_-]{22}$/);
    expect(call.headers['x-forwarded-for']).toBe('203.0.113.0');
    expect(JSON.stringify(ref2bodies())).not.toContain('user-anon-7');
    // A DSP that cannot bid without consent is not called: non-bid no_consent (code 200, request not sent).
    expect(bidCall(consentOnly)).toBeUndefined();
    const rows = await loggedBids(h, res.body.auction_id);
    expect(rows.find((r) => r.bidder_id === consentOnly.dspId)).toMatchObject({ outcome: 'rejected', reason: 'no_consent', seat_non_bid_code: 200 });
  });

  test('IPv6: cut to its /48', async () => {
    await auction(request({ ip: '2001:db8:1234:5678::1', regs: { us_privacy: '1YYN' } }));
    expect(bidCall(vendor)!.body.device).toMatchObject({ ipv6: '2001:db8:1234::' });
    expect(bidCall(native)!.headers['x-forwarded-for']).toBe('2001:db8:1234::');
  });

  test("the native userId is the conversation's: the same for two requests of one chat, another for another chat", async () => {
    await auction(request({ chatId: 'chat-a', regs: { us_privacy: '1YYN' } }));
    const first = bidCall(native)!.body.userId;
    native.dsp.received.length = 0;
    await auction(request({ chatId: 'chat-a', regs: { us_privacy: '1YYN' } }));
    expect(bidCall(native)!.body.userId).toBe(first);
    native.dsp.received.length = 0;
    await auction(request({ chatId: 'chat-b', regs: { us_privacy: '1YYN' } }));
    expect(bidCall(native)!.body.userId).not.toBe(first);
  });
});

/** Every body the DSPs received in this test. */
const ref2bodies = () => [vendor, nonVendor, native].flatMap((ref) => ref.dsp.received.map((r) => r.body));

describe('minors', () => {
  const noFillCount = (reason: string) => counter(`auction_no_fills_total{reason="${reason}"}`);

  test.each<[string, Record<string, unknown>]>([
    ['under 13', { user: { age_group: 'under_13' } }],
    ['COPPA', { regs: { coppa: 1 } }],
    ['13-17, by default', { user: { age_group: '13_17' } }],
  ])('%s: no auction, no_fill_reason minor, logged and counted', async (_label, signals) => {
    const before = { noFill: await noFillCount('minor'), contextual: await contextualOnly('minor') };
    const res = await auction(request(signals));
    expect(res.body).toEqual({ auction_id: expect.any(String), ad: null, no_fill_reason: 'minor' });
    expect(ref2bodies()).toEqual([]);
    expect(await noFillCount('minor')).toBe(before.noFill + 1);
    // No auction ran: not a contextual-only auction.
    expect(await contextualOnly('minor')).toBe(before.contextual);
    await h.auction.deps.log.flush();
    const clickhouse = createClickhouse();
    try {
      const rs = await clickhouse.query({
        query: sql`SELECT no_fill_reason, bidders FROM auctions WHERE auction_id = ${res.body.auction_id}`,
        format: 'JSONEachRow',
      });
      expect(await rs.json()).toEqual([{ no_fill_reason: 'minor', bidders: 0 }]);
    } finally {
      await clickhouse.close();
    }
  });

  test('13-17 where the publisher allows contextual-only ads: the contextual-only request; under 13 still no ad', async () => {
    await teenSetting(true);
    try {
      const before = await contextualOnly('minor');
      await auction(request({ user: { age_group: '13_17' } }));
      expect(await contextualOnly('minor')).toBe(before + 1);
      expect(bidCall(vendor)!.body).not.toHaveProperty('user');
      expect(bidCall(vendor)!.body.device.ip).toBe('203.0.113.0');
      expect(bidCall(consentOnly)).toBeUndefined();
      expect((await auction(request({ user: { age_group: 'under_13' } }))).body.no_fill_reason).toBe('minor');
    } finally {
      await teenSetting(false);
    }
  });
});

async function teenSetting(allowed: boolean) {
  await updatePublisherSettings(h.db, h.publisherId, { teenContextualAds: allowed });
  await until(
    () => [...h.auction.deps.catalog.publishers.values()].some((p) => p.publicId === h.publisherId && p.teenContextualAds === allowed),
    'the teen setting in the auction',
  );
}

describe('what is kept: no user key for a contextual-only request, the conversation still counted', () => {
  let bidder: Ref;
  beforeAll(async () => {
    bidder = await addReferenceDsp(h, 'openrtb', { price: 3 });
    // Conversation density makes the auction count a DSP's ad (frequency_events).
    await updatePublisherSettings(h.db, h.publisherId, { maxAdsPerConversation: 100 });
    await until(() => [...h.auction.deps.catalog.publishers.values()].some((p) => p.publicId === h.publisherId && p.maxAdsPerConversation === 100), 'density');
  });
  afterAll(async () => {
    await dropReferenceDsp(h, bidder);
    await updatePublisherSettings(h.db, h.publisherId, { maxAdsPerConversation: null });
  });

  async function shown(signals: Record<string, unknown>) {
    const res = await auction(request({ chatId: `chat-kept-${Math.random()}`, ...signals }));
    expect(res.body.ad).toMatchObject({ format: 'sponsored_message' });
    const claims = readDeliveryToken(new URL(res.body.ad.view_url).searchParams.get('token'), 'view')!.claims;
    const rows = await eventually(
      () => h.db.frequencyEvent.findMany({ where: { auctionId: res.body.auction_id } }),
      (found) => found.length > 0,
      { what: 'the showing in frequency_events', timeoutMs: 30_000 },
    );
    return { ad: res.body.ad, claims, rows };
  }

  test('contextual only: the win is counted for the conversation alone, the tracking token names no user; personalized: both', async () => {
    const contextual = await shown({ regs: { us_privacy: '1YYN' } });
    expect(contextual.rows.map((r) => ({ userKey: r.userKey, chat: r.chatKey !== '' }))).toEqual([{ userKey: '', chat: true }]);
    expect(contextual.claims.user_key).toBeUndefined();
    expect(contextual.claims.chat_key).toEqual(expect.any(String));
    expect(contextual.ad.why_this_ad).toMatch(/^Shown because .*\. Not personalized: no profile or id of yours was used to choose it\.$/);

    const personalized = await shown({ regs: { us_privacy: '1YNN' } });
    expect(personalized.rows).toEqual([expect.objectContaining({ userKey: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) })]);
    expect(personalized.claims.user_key).toEqual(personalized.rows[0].userKey);
    expect(personalized.ad.why_this_ad).toMatch(/^Shown because this conversation is about [^.]+\.$/);
  });
});

describe('malformed signals: 400 invalid_value naming the field, before any DSP is called', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['a TC string that does not decode', { user: { consent: 'AAAA' } }, 'user.consent'],
    ['a TC string with characters outside base64url', { user: { consent: 'CP!!' } }, 'user.consent'],
    ['a GPP string that does not decode', { regs: { gpp: 'DBAB' } }, 'regs.gpp'],
    ['a GPP section that does not decode', { regs: { gpp: 'DBABL~!!!' } }, 'regs.gpp'],
    ['gpp_sid naming a section the string lacks', { regs: { gpp: gppString({ usnat: { SaleOptOut: 2 } }), gpp_sid: [8] } }, 'regs.gpp_sid'],
    ['gpp_sid without gpp', { regs: { gpp_sid: [7] } }, 'regs.gpp_sid'],
    ['a US Privacy string of another version', { regs: { us_privacy: '2YNN' } }, 'regs.us_privacy'],
    ['gdpr 2', { regs: { gdpr: 2 } }, 'regs.gdpr'],
    ['coppa true', { regs: { coppa: true } }, 'regs.coppa'],
    ['an unknown age group', { user: { age_group: 'child' } }, 'user.age_group'],
    ['an unknown field in regs', { regs: { ccpa: 1 } }, 'regs.ccpa'],
  ])('%s', async (_label, signals, param) => {
    const res = await adRequest(h, request(signals));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { type: 'invalid_request_error', code: 'invalid_value', param, message: expect.stringContaining(param) } });
    expect(ref2bodies()).toEqual([]);
  });
});
