import { config } from '../lib/config';
import { sweepUserErasures } from '../domain/privacy/erasure';
import { defineJob } from './job';

const PER_RUN = 500;
/** Beyond a view link's lifetime: the auctions' batched writes of their wins, clocks that disagree. */
const SETTLE_MARGIN_MS = 60_000;

/**
 * Chat hosts' erasures of their users (domain/privacy/erasure.ts): each swept
 * at once, and again once every view link minted before it has expired (its
 * pixel could still record a row with the user's key), then done.
 */
export const userErasureSettleMs = () => config.delivery.viewTokenTtlSeconds * 1000 + SETTLE_MARGIN_MS;

export const userErasuresJob = defineJob({
  name: 'user-erasures',
  restMs: 5_000,
  async run({ pool }) {
    const swept = await sweepUserErasures(pool, { settleMs: userErasureSettleMs(), limit: PER_RUN });
    return { items: swept, more: swept === PER_RUN };
  },
});
