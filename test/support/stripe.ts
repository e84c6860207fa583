import Stripe from 'stripe';

/** The Stripe SDK pointed at this run's emulator (test/support/global-setup.ts starts it). */
export function emulatorStripe(): Stripe {
  const url = new URL(process.env.STRIPE_EMULATOR_URL!);
  return new Stripe('sk_test_emulator', { host: url.hostname, port: Number(url.port), protocol: 'http' });
}

/**
 * Every payment intent of the run that matches, across all pages: the emulator
 * holds the whole run's intents, so a single page of the newest would miss
 * older ones once other tests have made more.
 */
export async function intentsWhere(match: (intent: Stripe.PaymentIntent) => boolean): Promise<Stripe.PaymentIntent[]> {
  const found: Stripe.PaymentIntent[] = [];
  for await (const intent of emulatorStripe().paymentIntents.list({ limit: 100 })) if (match(intent)) found.push(intent);
  return found;
}
