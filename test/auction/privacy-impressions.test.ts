/**
 * A contextual-only request's impression (issue 48): the view pixel's ledger
 * write counts it toward its conversation (frequency_events, conversation
 * density) without a user key; a personalized one's carries the user's key.
 * Real auction, real api trackers, real PostgreSQL (domain/delivery/charge.sql).
 */
import { updatePublisherSettings } from '../../domain/publishers/settings';
import { useApiAndAuction } from '../support/api-and-auction';
import { eventually } from '../support/wait';
import { addReferenceDsp, adRequest, BROWSER_UA, contextualRequest, dropReferenceDsp, until } from './support';

// A DSP's ad only: our own bidder's budget gate is closed.
const { api, h } = useApiAndAuction({ budget: { mayServe: () => false } });

/** A tracking URL of the auction's answer, sent to this test's api. */
const onApi = (url: string) => `${api.url}${new URL(url).pathname}${new URL(url).search}`;

test("the impression of a contextual-only request counts for its conversation alone; a personalized one's for its user too", async () => {
  const ref = await addReferenceDsp(h, 'openrtb', { price: 3 });
  // Conversation density: the showing of a DSP's ad is counted (frequency-caps.ts, domain/delivery/charge.sql).
  await updatePublisherSettings(h.db, h.publisherId, { maxAdsPerConversation: 100 });
  await until(
    () => [...h.auction.deps.catalog.publishers.values()].some((p) => p.publicId === h.publisherId && p.maxAdsPerConversation === 100),
    'the density setting in the auction',
  );
  try {
    const impressionOf = async (signals: Record<string, unknown>) => {
      const res = await adRequest(h, contextualRequest(signals));
      expect(res.body.ad).toMatchObject({ format: 'sponsored_message' });
      const pixel = await fetch(onApi(res.body.ad.view_url), { headers: { 'user-agent': BROWSER_UA }, redirect: 'manual' });
      expect([200, 302]).toContain(pixel.status);
      return eventually(
        () => api.db.frequencyEvent.findMany({ where: { auctionId: res.body.auction_id, kind: 'impression' } }),
        (rows) => rows.length > 0,
        { what: 'the impression in frequency_events', timeoutMs: 30_000 },
      );
    };
    const contextual = await impressionOf({ regs: { us_privacy: '1YYN' } });
    expect(contextual.map((r) => ({ userKey: r.userKey, chat: r.chatKey.length > 0 }))).toEqual([{ userKey: '', chat: true }]);
    const personalized = await impressionOf({ regs: { us_privacy: '1YNN' } });
    expect(personalized.map((r) => ({ user: r.userKey.length > 0, chat: r.chatKey.length > 0 }))).toEqual([{ user: true, chat: true }]);
  } finally {
    await updatePublisherSettings(h.db, h.publisherId, { maxAdsPerConversation: null });
    await dropReferenceDsp(h, ref);
  }
});
