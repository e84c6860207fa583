import { withSessionLock } from '../lib/db';
import { dispatchWebhookEvents, markSignaled, unsignaledDeliveries, WEBHOOK_DISPATCH_LOCK } from '../domain/webhooks/delivery';
import { defineJob } from './job';

const EVENTS_PER_RUN = 200;
const SIGNALS_PER_RUN = 500;

/**
 * The webhook outbox's relay (domain/webhooks/delivery.ts): makes the
 * deliveries of new events, then hands every delivery no workflow knows of
 * (new ones, replays, test events) to its delivery workflow, and only then
 * marks it handed over: a crash in between hands it over again, which the
 * workflow's attempt turns into a no-op. A host without Temporal skips it.
 */
export const webhookDispatchJob = defineJob({
  name: 'webhook-dispatch',
  restMs: 500,
  async run({ pool, webhookDeliveries }) {
    if (!webhookDeliveries) return { items: 0, more: false };
    const turn = await withSessionLock(pool, WEBHOOK_DISPATCH_LOCK, async (client) => {
      const events = await dispatchWebhookEvents(client, EVENTS_PER_RUN);
      const pending = await unsignaledDeliveries(client, SIGNALS_PER_RUN);
      if (pending.length) {
        await webhookDeliveries(pending);
        await markSignaled(
          client,
          pending.map((d) => d.id),
        );
      }
      return { events, signaled: pending.length };
    });
    if (!turn.locked) return { items: 0, more: false };
    const { events, signaled } = turn.value;
    return { items: events + signaled, more: events === EVENTS_PER_RUN || signaled === SIGNALS_PER_RUN };
  },
});
