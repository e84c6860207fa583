import { config } from '../lib/config';
import { stepPacing } from '../domain/serving/pacing-store';
import { defineJob } from './job';

/**
 * Even pacing (domain/serving/pacing.ts): every PACING_INTERVAL_MS, one
 * controller step for every campaign in flight with an end time, from the
 * shared spend store; the auctions read the plan (auction/inhouse/pacing-gate.ts).
 */
export const pacingJob = defineJob({
  name: 'pacing',
  restMs: config.pacing.intervalMs,
  async run({ db }) {
    return { items: await stepPacing(db, Date.now()), more: false };
  },
});
