import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../lib/db';
import { attemptWebhookDelivery, giveUpWebhookDelivery, WebhookAttemptFailed, type AttemptOutcome } from '../domain/webhooks/delivery';
import type { WebhookObserver } from '../domain/webhooks/metrics';

/** The delivery workflow's I/O (workflows/webhook-delivery.ts): one attempt, or giving up. */
export function webhookActivities(db: Db, observer?: WebhookObserver) {
  return {
    async attemptWebhookDelivery(deliveryId: string): Promise<AttemptOutcome> {
      try {
        const outcome = await attemptWebhookDelivery(db, deliveryId);
        if (outcome === 'succeeded') observer?.attempted('succeeded');
        return outcome;
      } catch (err) {
        if (!(err instanceof WebhookAttemptFailed)) throw err;
        observer?.attempted('failed');
        // Retryable: the workflow's retry policy backs off for up to 3 days.
        throw ApplicationFailure.retryable(err.message, 'webhook_attempt_failed');
      }
    },
    giveUpWebhookDelivery: (deliveryId: string): Promise<void> => giveUpWebhookDelivery(db, deliveryId),
  };
}
