import { ActivityFailure, condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * One attempt per call, retried with exponential backoff (5 s doubling, at most
 * an hour apart) until 3 days after the first: then the delivery is given up.
 */
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '3 days',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 hour' },
});
const { giveUpWebhookDelivery } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

export interface WebhookDeliveryInput {
  endpointId: string;
  orderingKey: string;
  /** Deliveries carried over continue-as-new, in order. */
  pending?: string[];
}

/** More deliveries of this workflow's endpoint and key, in order (the dispatch job, jobs/webhook-dispatch.ts). */
export const deliverSignal = defineSignal<[string[]]>('deliver');

/** How long the workflow waits for more before it ends (the next delivery starts it again). */
const IDLE = '5 minutes';
/** Continue as new after this many deliveries, so the history stays small. */
const DELIVERIES_PER_RUN = 200;

/**
 * The deliveries of one endpoint and one ordering key (a campaign, or a key),
 * one at a time, in the order they were made: the next waits until the one
 * before succeeded or was given up after 3 days. A delivery signalled twice
 * (the dispatch job repeated after a crash) is sent once: the attempt skips
 * what was already delivered.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  const queue = [...(input.pending ?? [])];
  const queued = new Set(queue);
  setHandler(deliverSignal, (ids) => {
    for (const id of ids) {
      if (queued.has(id)) continue;
      queued.add(id);
      queue.push(id);
    }
  });
  for (let done = 0; ; done += 1) {
    if (queue.length === 0 && !(await condition(() => queue.length > 0, IDLE))) return;
    if (done >= DELIVERIES_PER_RUN) await continueAsNew<typeof webhookDelivery>({ ...input, pending: queue });
    const deliveryId = queue.shift()!;
    try {
      await attemptWebhookDelivery(deliveryId);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      await giveUpWebhookDelivery(deliveryId);
    }
  }
}

export const webhookDeliveryWorkflowId = (endpointId: string, orderingKey: string) => `webhook-delivery-${endpointId}-${orderingKey}`;
