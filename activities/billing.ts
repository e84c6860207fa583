import Stripe from 'stripe';
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../lib/db';
import { paymentMethodOf } from '../domain/organizations/service';
import { recordCampaignDeposit } from '../domain/campaigns/creation';

/** The fixed deposit charged on every campaign create: USD 10, in cents. */
export const DEPOSIT_AMOUNT_CENTS = 1000;
export const DEPOSIT_CURRENCY = 'usd';

/** Failure types the campaign-creation workflow maps to the spec's errors. */
export const BillingFailure = {
  cardDeclined: 'card_declined',
  provider: 'payment_provider_error',
} as const;

const declined = (message: string, declineCode: string | null) =>
  ApplicationFailure.nonRetryable(message, BillingFailure.cardDeclined, { decline_code: declineCode });

/**
 * Stripe errors that no retry can fix. A payment method Stripe does not know is
 * the advertiser's billing problem (a decline); any other invalid request is
 * ours or the provider's (502), not the card's.
 */
function finalStripeError(err: unknown): ApplicationFailure | null {
  if (err instanceof Stripe.errors.StripeCardError) return declined(err.message, err.decline_code || err.code || null);
  if (err instanceof Stripe.errors.StripeInvalidRequestError) {
    if (err.code === 'resource_missing' && err.param === 'payment_method') return declined(err.message, err.code);
    return ApplicationFailure.nonRetryable(err.message, BillingFailure.provider, { code: err.code ?? null });
  }
  return null; // outages and 5xx: thrown as they are, for the activity's bounded retries
}

/**
 * The deposit is two Stripe calls, so the workflow learns the PaymentIntent id
 * before any money moves: creating the intent charges nothing, and once the id
 * is known the compensation can always find out whether the confirm charged
 * (and refund it), even if the confirm's answer was lost.
 */
export function billingActivities(db: Db, stripe: Stripe) {
  return {
    defaultPaymentMethod: (organizationId: string) => paymentMethodOf(db, organizationId),

    /** Creates the deposit's PaymentIntent, unconfirmed (nothing is charged). Idempotent per workflow. */
    async createDepositIntent(input: {
      organizationId: string;
      campaignId: string;
      paymentMethodId: string;
      customerId: string | null;
      idempotencyKey: string;
    }): Promise<string> {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: DEPOSIT_AMOUNT_CENTS,
            currency: DEPOSIT_CURRENCY,
            payment_method: input.paymentMethodId,
            ...(input.customerId ? { customer: input.customerId } : {}),
            description: 'Campaign deposit',
            metadata: { organization_id: input.organizationId, campaign_id: input.campaignId },
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return intent.id;
      } catch (err) {
        throw finalStripeError(err) ?? err;
      }
    },

    /** Charges the card off-session. A decline is final; an outage is retried (same idempotency key). */
    async confirmDeposit(input: { paymentIntentId: string; idempotencyKey: string }): Promise<void> {
      let intent: Stripe.PaymentIntent;
      try {
        intent = await stripe.paymentIntents.confirm(input.paymentIntentId, { off_session: true }, { idempotencyKey: input.idempotencyKey });
      } catch (err) {
        // Confirmed by an attempt whose answer was lost: the intent itself tells.
        if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state') {
          intent = await stripe.paymentIntents.retrieve(input.paymentIntentId);
        } else {
          throw finalStripeError(err) ?? err;
        }
      }
      if (intent.status !== 'succeeded') throw declined(`Deposit payment is ${intent.status}`, intent.status);
    },

    recordDeposit: (campaignId: string, paymentIntentId: string): Promise<void> => recordCampaignDeposit(db, campaignId, paymentIntentId),

    /**
     * Compensation: whatever the confirm did, undo it. A charged deposit is
     * refunded, an uncharged intent canceled. Safe to repeat.
     */
    async releaseDeposit(paymentIntentId: string): Promise<void> {
      const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
      if (intent.status === 'succeeded') {
        await stripe.refunds.create({ payment_intent: paymentIntentId }, { idempotencyKey: `refund-${paymentIntentId}` });
      } else if (intent.status !== 'canceled') {
        await stripe.paymentIntents.cancel(paymentIntentId, {}, { idempotencyKey: `cancel-${paymentIntentId}` });
      }
    },
  };
}
