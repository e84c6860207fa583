import Stripe from 'stripe';
import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../lib/db';

/** The fixed deposit charged on every campaign create: USD 10, in cents. */
export const DEPOSIT_AMOUNT_CENTS = 1000;
export const DEPOSIT_CURRENCY = 'usd';

/** Failure types the campaign-creation workflow maps to the spec's errors. */
export const BillingFailure = {
  cardDeclined: 'card_declined',
  provider: 'payment_provider_error',
} as const;

export function billingActivities(db: Db, stripe: Stripe) {
  return {
    /** The organization's default payment method, or null when billing is not configured. */
    async defaultPaymentMethod(organizationId: string): Promise<string | null> {
      const org = await db.organization.findUnique({ where: { id: organizationId }, select: { defaultPaymentMethodId: true } });
      return org?.defaultPaymentMethodId ?? null;
    },

    /**
     * Charges the deposit off-session. The Stripe idempotency key comes from the
     * workflow, so every retry of this activity (and of the SDK) is the same
     * charge. A decline is final (non-retryable); a provider outage is thrown as
     * is, for the activity's bounded retry policy.
     */
    async chargeDeposit(input: { organizationId: string; campaignId: string; paymentMethodId: string; idempotencyKey: string }): Promise<string> {
      let intent: Stripe.PaymentIntent;
      try {
        intent = await stripe.paymentIntents.create(
          {
            amount: DEPOSIT_AMOUNT_CENTS,
            currency: DEPOSIT_CURRENCY,
            payment_method: input.paymentMethodId,
            confirm: true,
            off_session: true,
            description: 'Campaign deposit',
            metadata: { organization_id: input.organizationId, campaign_id: input.campaignId },
          },
          { idempotencyKey: input.idempotencyKey },
        );
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) {
          throw ApplicationFailure.nonRetryable(err.message, BillingFailure.cardDeclined, { decline_code: err.decline_code || err.code || null });
        }
        // A payment method Stripe does not know is the advertiser's billing problem, not an outage.
        if (err instanceof Stripe.errors.StripeInvalidRequestError) {
          throw ApplicationFailure.nonRetryable(err.message, BillingFailure.cardDeclined, { decline_code: err.code ?? null });
        }
        throw err;
      }
      if (intent.status !== 'succeeded') {
        throw ApplicationFailure.nonRetryable(`Deposit payment is ${intent.status}`, BillingFailure.cardDeclined, { decline_code: intent.status });
      }
      await db.campaign.updateMany({ where: { id: input.campaignId }, data: { depositPaymentIntentId: intent.id } });
      return intent.id;
    },

    /** Compensation: gives the deposit back (idempotent per intent). */
    async refundDeposit(paymentIntentId: string): Promise<void> {
      await stripe.refunds.create({ payment_intent: paymentIntentId }, { idempotencyKey: `refund-${paymentIntentId}` });
    },
  };
}
