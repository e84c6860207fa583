/** The render cache holds DSP bids for about a minute, and never more than its bound. */
import { BidCache } from '../../auction/bid-cache';
import type { ValidBid } from '../../auction/types';

const bid = (bidId: string) => ({ bidderId: 'dsp', bidId }) as ValidBid;

test('past maxEntries the oldest bid goes first; an expired bid is gone', () => {
  const cache = new BidCache(60_000, 3);
  try {
    for (const id of ['a', 'b', 'c', 'd', 'e']) cache.put(bid(id), 0);
    expect(cache.size).toBe(3);
    expect(cache.take('dsp', 'a', 1)).toBeNull();
    expect(cache.take('dsp', 'c', 1)).toMatchObject({ bidId: 'c' });
    expect(cache.take('dsp', 'e', 60_001)).toBeNull();
  } finally {
    cache.close();
  }
});
