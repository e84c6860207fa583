/**
 * General invalid traffic at the auction: an ad request whose user agent (the
 * body's user_agent, else the caller's User-Agent) is a known bot or crawler
 * runs no auction and answers no_fill_reason `invalid_traffic`, logged and counted.
 */
import { adRequest, BROWSER_UA, contextualRequest, useAuction } from './support';

// No in-house ad may serve (nor a DSP: none is added), so a run auction answers no_bids.
const h = useAuction({ budget: { mayServe: () => false } });

const noFillCount = async () => {
  const text = await h.auction.deps.metrics.registry.metrics();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith('auction_no_fills_total{reason="invalid_traffic"} '))
      ?.split(' ')
      .pop() ?? 0,
  );
};

test.each([
  ['a crawler in the body', { user_agent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }, {}],
  ['an HTTP library in the body', { user_agent: 'python-requests/2.31.0' }, {}],
  ['no user_agent, a bot as the caller', { user_agent: undefined }, { 'user-agent': 'curl/8.5.0' }],
])('%s: no auction, no_fill_reason invalid_traffic', async (_label, body, headers) => {
  const before = await noFillCount();
  const res = await adRequest(h, contextualRequest({ country_code: 'AQ', ...body }), h.publisherKey, headers);
  expect(res).toEqual({ status: 200, body: { auction_id: expect.any(String), ad: null, no_fill_reason: 'invalid_traffic' } });
  expect(await noFillCount()).toBe(before + 1);
});

test("a browser's request runs the auction (no demand here: no_bids)", async () => {
  const res = await adRequest(h, contextualRequest({ country_code: 'AQ', user_agent: BROWSER_UA }));
  expect(res).toEqual({ status: 200, body: { auction_id: expect.any(String), ad: null, no_fill_reason: 'no_bids' } });
});
