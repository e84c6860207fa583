/**
 * Advertiser-domain blocks compare one normalized form: lower case, no
 * trailing dot of a fully qualified name, whether the domain comes from the
 * publisher's setting, the request's badv or the bid's adomain.
 */
import { assertNotBlocked, blocksOf } from '../../auction/publisher/blocks';
import { BidRejection } from '../../auction/non-bid';
import type { ValidBid } from '../../auction/types';
import { publisherSettingsData } from '../../domain/publishers/settings';

const bid = (adomain: string[]): ValidBid => ({
  bidderId: 'dsp-1',
  bidderName: 'DSP',
  kind: 'openrtb',
  bidId: 'b1',
  priceMicros: 1_000_000,
  creative: null,
  adomain,
});

const rejection = (fn: () => void): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof BidRejection) return err.reason;
    throw err;
  }
};

const none = { blockedAdvertisers: new Set<string>(), blockedCategories: [] };

describe('advertiser domain blocks', () => {
  test.each([
    ['a badv entry with a trailing dot', ['example.com.'], 'example.com'],
    ['a badv entry in capitals with a trailing dot', ['EXAMPLE.Com.'], 'shop.example.com'],
    ['a plain badv entry, the bid domain with a trailing dot', ['example.com'], 'example.com.'],
  ])('%s blocks', (_what, badv, adomain) => {
    const blocks = blocksOf(none, { badv, bcat: undefined });
    expect(rejection(() => assertNotBlocked(blocks, bid([adomain])))).toBe('blocked_advertiser');
  });

  test('a badv entry with a trailing dot is forwarded as the bare domain', () => {
    expect([...blocksOf(none, { badv: ['Example.com.'], bcat: undefined }).advertisers]).toEqual(['example.com']);
  });

  test("the publisher's setting with a trailing dot is stored bare, and blocks", () => {
    const data = publisherSettingsData({ blockAdvertisers: ['Example.COM.', 'other.example'] });
    expect(data.blockedAdvertisers).toEqual(['example.com', 'other.example']);
    const blocks = blocksOf({ blockedAdvertisers: new Set(data.blockedAdvertisers), blockedCategories: [] }, { badv: undefined, bcat: undefined });
    expect(rejection(() => assertNotBlocked(blocks, bid(['www.example.com'])))).toBe('blocked_advertiser');
  });

  test('an unrelated domain is not blocked', () => {
    const blocks = blocksOf(none, { badv: ['example.com.'], bcat: undefined });
    expect(rejection(() => assertNotBlocked(blocks, bid(['notexample.com'])))).toBeNull();
  });
});
