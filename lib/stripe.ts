import Stripe from 'stripe';
import { config } from './config';

export const STRIPE_EMULATOR_DEFAULT_URL = 'http://127.0.0.1:12111';

// Callers run inside Temporal activities, which have their own bounded retry
// policy: the SDK retries once (with the same idempotency key) for a blip, and
// gives up quickly so that a stuck call fails the attempt instead of holding it
// until the activity times out. Retries multiply, so keep both small
// (config.timeouts.stripe*).

/**
 * The Stripe client for this process. With STRIPE_SECRET_KEY set it talks to
 * real Stripe (use a test-mode key outside production); without it, to the local
 * emulator (dev/stripe-emulator) at STRIPE_EMULATOR_URL.
 */
export function createStripeClient(env: NodeJS.ProcessEnv = process.env): Stripe {
  const settings = { maxNetworkRetries: config.timeouts.stripeMaxNetworkRetries, timeout: config.timeouts.stripeRequestMs };
  if (env.STRIPE_SECRET_KEY) return new Stripe(env.STRIPE_SECRET_KEY, settings);
  // Fail closed: the emulator moves no money (lib/config.ts assertStartupConfig).
  if (env.NODE_ENV === 'production') throw new Error('STRIPE_SECRET_KEY must be set with NODE_ENV=production');

  const url = new URL(env.STRIPE_EMULATOR_URL || STRIPE_EMULATOR_DEFAULT_URL);
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return new Stripe('sk_test_emulator', {
    ...settings,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'), // IPv6 literals come bracketed
    port: url.port ? Number(url.port) : protocol === 'https' ? 443 : 80,
    protocol,
  });
}
