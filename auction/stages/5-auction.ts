import type { ValidBid } from '../types';

/** Stage 5, auction: first price, highest bid first, ties in random order (shuffle, then a stable sort). */
export function rankBids(bids: readonly ValidBid[], random: () => number = Math.random): ValidBid[] {
  const shuffled = [...bids];
  for (let i = shuffled.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  return shuffled.sort((a, b) => b.priceMicros - a.priceMicros);
}
