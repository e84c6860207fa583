import { config } from '../lib/config';
import { forwardDueCallbacks } from '../domain/delivery/dsp-callbacks';
import { defineJob } from './job';

const PER_RUN = 50;

/**
 * Feedback owed to DSPs, forwarded from its outbox (`dsp_callbacks`,
 * domain/delivery/dsp-callbacks.ts): each call retried with its own backoff and
 * parked after its last attempt, for `adctl dsp callbacks`.
 */
export const dspCallbacksJob = defineJob({
  name: 'dsp-callbacks',
  restMs: 1_000,
  async run({ pool }) {
    const sent = await forwardDueCallbacks(pool, {
      maxAttempts: config.delivery.callbackMaxAttempts,
      timeoutMs: config.timeouts.dspCallbackMs,
      limit: PER_RUN,
    });
    return { items: sent, more: sent === PER_RUN };
  },
});
