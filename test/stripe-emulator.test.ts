/**
 * The Stripe emulator, exercised the way the platform uses it: through the real
 * `stripe` SDK (plus plain fetch for the emulator's own control endpoint).
 */
import crypto from 'node:crypto';
import Stripe from 'stripe';
import { startStripeEmulator, type StripeEmulator } from '../dev/stripe-emulator/server';
import { createStripeClient } from '../lib/stripe';

let emulator: StripeEmulator;
let stripe: Stripe;

beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  stripe = client();
});

afterAll(async () => {
  await emulator?.close();
});

function client(config: Stripe.StripeConfig = {}, key = 'sk_test_emulator_tests'): Stripe {
  return new Stripe(key, { host: '127.0.0.1', port: emulator.port, protocol: 'http', ...config });
}

/** A fresh customer id, so listing by customer counts only this test's intents. */
const newCustomer = (): string => `cus_${crypto.randomUUID().replace(/-/g, '')}`;

/** The error a call fails with; fails the test if the call succeeds. */
async function failureOf(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const result = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (result.ok) throw new Error(`expected the call to fail, it returned ${JSON.stringify(result.value)}`);
  expect(result.error).toBeInstanceOf(Stripe.errors.StripeError);
  return result.error as Stripe.errors.StripeError;
}

async function setFaults(body: unknown): Promise<Response> {
  return fetch(`${emulator.url}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const charge = (params: Partial<Stripe.PaymentIntentCreateParams> = {}): Stripe.PaymentIntentCreateParams => ({
  amount: 2500,
  currency: 'usd',
  payment_method: 'pm_card_visa',
  confirm: true,
  off_session: true,
  ...params,
});

describe('PaymentIntents', () => {
  test.each(['pm_card_visa', 'pm_card_mastercard', 'pm_card_amex', 'pm_card_discover', 'pm_card_jcb', 'pm_card_visa_debit'])(
    'confirming with %s succeeds',
    async (paymentMethod) => {
      const customer = newCustomer();
      const intent = await stripe.paymentIntents.create(
        charge({ payment_method: paymentMethod, customer, description: 'Campaign budget', metadata: { campaign: 'cmp_1', advertiser: 'adv_9' } }),
      );

      expect(intent).toMatchObject({
        object: 'payment_intent',
        amount: 2500,
        amount_received: 2500,
        currency: 'usd',
        customer,
        description: 'Campaign budget',
        livemode: false,
        metadata: { campaign: 'cmp_1', advertiser: 'adv_9' },
        status: 'succeeded',
        last_payment_error: null,
      });
      expect(intent.id).toMatch(/^pi_[A-Za-z0-9]{24}$/);
      expect(intent.latest_charge).toMatch(/^ch_[A-Za-z0-9]{24}$/);
      expect(intent.payment_method).toMatch(/^pm_[A-Za-z0-9]{24}$/);
      expect(intent.created).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(intent.lastResponse.statusCode).toBe(200);

      const again = await stripe.paymentIntents.retrieve(intent.id);
      expect(again.status).toBe('succeeded');
      expect(again.latest_charge).toBe(intent.latest_charge);
    },
  );

  test('without confirm the intent waits for confirmation and nothing is charged', async () => {
    const intent = await stripe.paymentIntents.create({ amount: 1000, currency: 'EUR', payment_method: 'pm_card_visa' });
    expect(intent.status).toBe('requires_confirmation');
    expect(intent.currency).toBe('eur');
    expect(intent.amount_received).toBe(0);
    expect(intent.latest_charge).toBeNull();
  });

  test.each([
    ['pm_card_chargeDeclined', 'card_declined', 'generic_decline'],
    ['pm_card_visa_chargeDeclined', 'card_declined', 'generic_decline'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
    ['pm_card_visa_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
    ['pm_card_chargeDeclinedLostCard', 'card_declined', 'lost_card'],
    ['pm_card_chargeDeclinedStolenCard', 'card_declined', 'stolen_card'],
    ['pm_card_chargeDeclinedFraudulent', 'card_declined', 'fraudulent'],
    ['pm_card_radarBlock', 'card_declined', 'fraudulent'],
    ['pm_card_visa_chargeDeclinedVelocityLimitExceeded', 'card_declined', 'card_velocity_exceeded'],
    ['pm_card_chargeCustomerFail', 'card_declined', 'generic_decline'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card', undefined],
    ['pm_card_chargeDeclinedIncorrectCvc', 'incorrect_cvc', undefined],
    ['pm_card_chargeDeclinedProcessingError', 'processing_error', undefined],
    ['pm_card_authenticationRequired', 'authentication_required', 'authentication_required'],
  ])('%s is declined with %s / %s', async (paymentMethod, code, declineCode) => {
    const err = await failureOf(stripe.paymentIntents.create(charge({ payment_method: paymentMethod })));

    expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(err.statusCode).toBe(402);
    expect(err.rawType).toBe('card_error');
    expect(err.code).toBe(code);
    expect((err.raw as { decline_code?: string }).decline_code).toBe(declineCode); // absent where the docs say n/a
    expect(err.decline_code).toBe(declineCode ?? ''); // the SDK's default
    expect(err.message).toMatch(/^Your card|^An error occurred/);
    expect(err.charge).toMatch(/^ch_/);
    expect(err.payment_method?.card?.last4).toMatch(/^\d{4}$/);

    const intent = err.payment_intent!;
    expect(intent.id).toMatch(/^pi_/);
    expect(intent.status).toBe('requires_payment_method');
    expect(intent.amount_received).toBe(0);
    expect(intent.latest_charge).toBe(err.charge);
    expect(intent.last_payment_error).toMatchObject({ type: 'card_error', code, message: err.message });
    expect(intent.last_payment_error?.decline_code).toBe(declineCode);

    const stored = await stripe.paymentIntents.retrieve(intent.id);
    expect(stored.status).toBe('requires_payment_method');
  });

  test('a card that needs 3D Secure asks for it when the customer is present', async () => {
    const intent = await stripe.paymentIntents.create(charge({ payment_method: 'pm_card_authenticationRequired', off_session: false }));
    expect(intent.status).toBe('requires_action');
    expect(intent.next_action?.type).toBe('use_stripe_sdk');
  });

  test('an unknown payment method is a resource_missing invalid request', async () => {
    const err = await failureOf(stripe.paymentIntents.create(charge({ payment_method: 'pm_does_not_exist' })));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(400);
    expect(err.rawType).toBe('invalid_request_error');
    expect(err.code).toBe('resource_missing');
    expect(err.param).toBe('payment_method');
    expect(err.message).toBe("No such PaymentMethod: 'pm_does_not_exist'");
  });

  test.each([
    ['amount', { currency: 'usd' }],
    ['currency', { amount: 1000 }],
  ])('a missing %s is parameter_missing', async (param, params) => {
    const err = await failureOf(stripe.paymentIntents.create(params as Stripe.PaymentIntentCreateParams));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.code).toBe('parameter_missing');
    expect(err.param).toBe(param);
  });

  test('amounts below the currency minimum and unknown parameters are rejected', async () => {
    const small = await failureOf(stripe.paymentIntents.create(charge({ amount: 49 })));
    expect(small.code).toBe('amount_too_small');
    expect(small.param).toBe('amount');

    const unknown = await failureOf(stripe.paymentIntents.create({ ...charge(), capture_method: 'manual' }));
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknown.code).toBe('parameter_unknown');
    expect(unknown.param).toBe('capture_method');
  });

  test('an intent is visible only to the secret key that created it', async () => {
    const intent = await stripe.paymentIntents.create(charge());
    const err = await failureOf(client({}, 'sk_test_someone_else').paymentIntents.retrieve(intent.id));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(404);
    expect(err.code).toBe('resource_missing');
  });
});

describe('authentication and routing', () => {
  test.each(['pk_test_publishable', 'sk_live_real_money', 'nonsense'])('key %s is refused with 401', async (key) => {
    const err = await failureOf(client({}, key).paymentIntents.create(charge()));
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(err.statusCode).toBe(401);
    expect(err.rawType).toBe('invalid_request_error');
    expect(err.message).toMatch(/^Invalid API Key provided/);
  });

  test('an unknown URL is a 404 in Stripe’s error shape', async () => {
    const err = await failureOf(stripe.rawRequest('GET', '/v1/customers/cus_123'));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(404);
    expect(err.message).toMatch(/^Unrecognized request URL \(GET: \/v1\/customers\/cus_123\)/);
  });
});

describe('idempotency', () => {
  test('the same key and parameters replay the first response without charging again', async () => {
    const customer = newCustomer();
    const idempotencyKey = crypto.randomUUID();
    const first = await stripe.paymentIntents.create(charge({ customer }), { idempotencyKey });
    const second = await stripe.paymentIntents.create(charge({ customer }), { idempotencyKey });

    expect(second.id).toBe(first.id);
    expect(second.latest_charge).toBe(first.latest_charge);
    expect(second).toEqual(first);
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');

    const listed = await stripe.paymentIntents.list({ customer });
    expect(listed.data.map((pi) => pi.id)).toEqual([first.id]);
  });

  test('a decline is replayed too (same status, same body)', async () => {
    const idempotencyKey = crypto.randomUUID();
    const params = charge({ payment_method: 'pm_card_chargeDeclinedInsufficientFunds' });
    const first = await failureOf(stripe.paymentIntents.create(params, { idempotencyKey }));
    const second = await failureOf(stripe.paymentIntents.create(params, { idempotencyKey }));
    expect(second).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(second.statusCode).toBe(402);
    expect(second.payment_intent?.id).toBe(first.payment_intent?.id);
    const body = ({ headers, requestId, ...rest }: Record<string, unknown>) => rest;
    expect(body(second.raw as Record<string, unknown>)).toEqual(body(first.raw as Record<string, unknown>));
    expect(second.headers?.['idempotent-replayed']).toBe('true');
  });

  test('keys are scoped per secret key', async () => {
    const idempotencyKey = crypto.randomUUID();
    const mine = await stripe.paymentIntents.create(charge(), { idempotencyKey });
    const theirs = await client({}, 'sk_test_other_account').paymentIntents.create(charge(), { idempotencyKey });
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  test('the same key with different parameters is an idempotency_error', async () => {
    const customer = newCustomer();
    const idempotencyKey = crypto.randomUUID();
    const first = await stripe.paymentIntents.create(charge({ customer, amount: 2500 }), { idempotencyKey });
    const err = await failureOf(stripe.paymentIntents.create(charge({ customer, amount: 9900 }), { idempotencyKey }));

    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err.statusCode).toBe(400);
    expect(err.rawType).toBe('idempotency_error');
    expect(err.message).toMatch(/same parameters/);
    const listed = await stripe.paymentIntents.list({ customer });
    expect(listed.data.map((pi) => pi.id)).toEqual([first.id]);
  });

  test('the same key on another endpoint is an idempotency_error', async () => {
    const idempotencyKey = crypto.randomUUID();
    const intent = await stripe.paymentIntents.create(charge(), { idempotencyKey });
    const err = await failureOf(stripe.refunds.create({ payment_intent: intent.id }, { idempotencyKey }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err.message).toMatch(/same endpoint/);
  });

  test('concurrent requests with one key charge once; the others get 409 while it runs', async () => {
    // A slow authorization (1.5 s) keeps the first request running while the others
    // arrive, however loaded the machine: the overlap does not depend on luck.
    const slow = await startStripeEmulator({ port: 0, authorizationDelayMs: 1500 });
    try {
      const customer = newCustomer();
      const idempotencyKey = crypto.randomUUID();
      const noRetries = new Stripe('sk_test_emulator_tests', { host: '127.0.0.1', port: slow.port, protocol: 'http', maxNetworkRetries: 0 });
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => noRetries.paymentIntents.create(charge({ customer }), { idempotencyKey })));

      const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
      const conflicts = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Stripe.errors.StripeError] : []));
      expect(ids.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ids).size).toBe(1);
      expect(conflicts.length).toBeGreaterThanOrEqual(1);
      for (const err of conflicts) {
        expect(err.statusCode).toBe(409);
        expect(err.rawType).toBe('idempotency_error');
        expect(err.code).toBe('idempotency_key_in_use');
      }
      const listed = await noRetries.paymentIntents.list({ customer });
      expect(listed.data.map((pi) => pi.id)).toEqual(ids.slice(0, 1));
    } finally {
      await slow.close();
    }
  });

  test('with SDK retries, concurrent same-key requests all end with the one intent', async () => {
    const customer = newCustomer();
    const idempotencyKey = crypto.randomUUID();
    const retrying = client({ maxNetworkRetries: 3 });
    const intents = await Promise.all(Array.from({ length: 5 }, () => retrying.paymentIntents.create(charge({ customer }), { idempotencyKey })));
    expect(new Set(intents.map((pi) => pi.id)).size).toBe(1);
    const listed = await stripe.paymentIntents.list({ customer });
    expect(listed.data).toHaveLength(1);
  });

  test('a rejected request is not saved, so the key can be retried with corrected parameters', async () => {
    const idempotencyKey = crypto.randomUUID();
    const err = await failureOf(stripe.paymentIntents.create(charge({ amount: 10 }), { idempotencyKey }));
    expect(err.code).toBe('amount_too_small');
    const fixed = await stripe.paymentIntents.create(charge({ amount: 1000 }), { idempotencyKey });
    expect(fixed.status).toBe('succeeded');
    expect(fixed.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('simulated outages', () => {
  afterEach(async () => {
    await setFaults({ mode: 'none' });
  });

  test('pm_emulator_http_500 fails that request with an api_error; others are unaffected', async () => {
    const noRetries = client({ maxNetworkRetries: 0 });
    const [failed, fine] = await Promise.allSettled([
      noRetries.paymentIntents.create(charge({ payment_method: 'pm_emulator_http_500' })),
      noRetries.paymentIntents.create(charge()),
    ]);
    expect(failed.status).toBe('rejected');
    const err = (failed as PromiseRejectedResult).reason as Stripe.errors.StripeError;
    expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(err.statusCode).toBe(500);
    expect(err.rawType).toBe('api_error');
    expect(fine.status === 'fulfilled' && fine.value.status).toBe('succeeded');
  });

  test('pm_emulator_unreachable resets the connection', async () => {
    const err = await failureOf(client({ maxNetworkRetries: 0 }).paymentIntents.create(charge({ payment_method: 'pm_emulator_unreachable' })));
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(err.statusCode).toBeUndefined();
  });

  test('faults set through the control endpoint hit the next N requests, then clear', async () => {
    const noRetries = client({ maxNetworkRetries: 0 });
    const res = await setFaults({ mode: 'http_500', remaining: 2 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ mode: 'http_500', remaining: 2 });

    // An outage is not saved, so a retry under the same key runs once Stripe is back.
    const idempotencyKey = crypto.randomUUID();
    expect(await failureOf(noRetries.paymentIntents.create(charge(), { idempotencyKey }))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(await failureOf(noRetries.paymentIntents.retrieve('pi_whatever'))).toBeInstanceOf(Stripe.errors.StripeAPIError);
    const recovered = await noRetries.paymentIntents.create(charge(), { idempotencyKey });
    expect(recovered.status).toBe('succeeded');
    expect(recovered.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  test('reset mode looks unreachable until cleared', async () => {
    const noRetries = client({ maxNetworkRetries: 0 });
    expect((await setFaults({ mode: 'reset' })).status).toBe(200);
    // Unlimited: the SDK's one automatic retry of a reset connection fails too.
    expect(await failureOf(noRetries.paymentIntents.create(charge()))).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(await failureOf(noRetries.paymentIntents.create(charge()))).toBeInstanceOf(Stripe.errors.StripeConnectionError);

    expect(await (await setFaults({ mode: 'none' })).json()).toEqual({ mode: 'none', remaining: null });
    expect((await noRetries.paymentIntents.create(charge())).status).toBe('succeeded');
  });

  test('the control endpoint validates its input and reports health', async () => {
    expect((await setFaults({ mode: 'explode' })).status).toBe(400);
    expect((await setFaults({ mode: 'http_500', remaining: -1 })).status).toBe(400);
    const health = await fetch(`${emulator.url}/__emulator/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await stripe.paymentIntents.create(charge())).status).toBe('succeeded');
  });
});

describe('refunds', () => {
  test('a succeeded intent can be refunded in full', async () => {
    const intent = await stripe.paymentIntents.create(charge({ amount: 4200 }));
    const refund = await stripe.refunds.create({ payment_intent: intent.id, metadata: { reason_detail: 'campaign rejected' } });
    expect(refund).toMatchObject({
      object: 'refund',
      amount: 4200,
      currency: 'usd',
      charge: intent.latest_charge,
      payment_intent: intent.id,
      status: 'succeeded',
      metadata: { reason_detail: 'campaign rejected' },
    });
    expect(refund.id).toMatch(/^re_[A-Za-z0-9]{24}$/);
  });

  test('partial refunds add up to the amount and no further', async () => {
    const intent = await stripe.paymentIntents.create(charge({ amount: 3000 }));
    expect((await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 })).amount).toBe(1000);

    const tooMuch = await failureOf(stripe.refunds.create({ payment_intent: intent.id, amount: 2001 }));
    expect(tooMuch).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(tooMuch.param).toBe('amount');

    expect((await stripe.refunds.create({ payment_intent: intent.id })).amount).toBe(2000);
    const again = await failureOf(stripe.refunds.create({ payment_intent: intent.id }));
    expect(again.code).toBe('charge_already_refunded');
  });

  test('an intent that did not succeed cannot be refunded', async () => {
    const declined = await failureOf(stripe.paymentIntents.create(charge({ payment_method: 'pm_card_chargeDeclined' })));
    const err = await failureOf(stripe.refunds.create({ payment_intent: declined.payment_intent!.id }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.statusCode).toBe(400);
    expect(err.param).toBe('payment_intent');
  });

  test('an unknown intent is resource_missing', async () => {
    const err = await failureOf(stripe.refunds.create({ payment_intent: 'pi_unknown' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err.code).toBe('resource_missing');
  });
});

describe('createStripeClient', () => {
  test('without STRIPE_SECRET_KEY it talks to the emulator at STRIPE_EMULATOR_URL', async () => {
    const emulated = createStripeClient({ STRIPE_EMULATOR_URL: emulator.url });
    expect(emulated.getMaxNetworkRetries()).toBe(1);
    const intent = await emulated.paymentIntents.create(charge());
    expect(intent.status).toBe('succeeded');
    // It used its own key, so another key's client cannot see the intent.
    expect((await failureOf(stripe.paymentIntents.retrieve(intent.id))).statusCode).toBe(404);
  });

  test('with STRIPE_SECRET_KEY it is a normal client for api.stripe.com', () => {
    const real = createStripeClient({ STRIPE_SECRET_KEY: 'sk_test_123', STRIPE_EMULATOR_URL: emulator.url });
    expect(real.getApiField('host')).toBe('api.stripe.com');
    expect(real.getApiField('protocol')).toBe('https');
  });
});
