import { sweepUserErasures, userErasureSettleMs } from '../domain/privacy/erasure';
import { defineJob } from './job';

const PER_RUN = 500;

/** The settle time is the domain's (the auctions ignore an erased key's showings as long). */
export { userErasureSettleMs };

/**
 * Chat hosts' erasures of their users (domain/privacy/erasure.ts): each swept
 * at once, and again once every view link minted before it has expired (its
 * pixel could still record a row with the user's key), then done.
 */
export const userErasuresJob = defineJob({
  name: 'user-erasures',
  restMs: 5_000,
  async run({ pool }) {
    const swept = await sweepUserErasures(pool, { settleMs: userErasureSettleMs(), limit: PER_RUN });
    return { items: swept, more: swept === PER_RUN };
  },
});
