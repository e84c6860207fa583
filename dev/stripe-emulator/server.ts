/**
 * A local emulator of the Stripe API endpoints the platform uses, for development
 * and tests without network access. It behaves like Stripe's test mode:
 *
 *   POST /v1/payment_intents        amount, currency, payment_method, customer, confirm,
 *                                   off_session, description, metadata, receipt_email,
 *                                   statement_descriptor_suffix
 *   GET  /v1/payment_intents        customer, limit, starting_after (Stripe's cursor pagination)
 *   GET  /v1/payment_intents/:id
 *   POST /v1/payment_intents/:id/confirm   off_session
 *   POST /v1/payment_intents/:id/cancel    cancellation_reason
 *   POST /v1/refunds                payment_intent, amount, reason, metadata
 *
 * Parameters it does not emulate are rejected (`parameter_unknown`) rather than
 * silently ignored. Idempotency-Key works as on Stripe (v1). Outages can be
 * simulated per request (FAULT_PAYMENT_METHODS) or for the next N requests:
 *
 *   POST /__emulator/faults  {"mode": "none" | "http_500" | "reset", "remaining"?: number}
 *   GET  /__emulator/health
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import { FAULT_PAYMENT_METHODS, findTestCard, type TestCard } from './test-payment-methods';

type Json = Record<string, unknown>;
interface Reply {
  status: number;
  body: Json;
}
interface SavedReply {
  status: number;
  json: string;
}
interface IdempotencyEntry {
  createdAt: number; // ms
  endpoint: string; // "POST /v1/payment_intents"
  params: string; // canonical JSON of the body
  saved?: SavedReply; // absent while the first request is still running
}
type Handler = (req: Request, res: Response) => Reply | Promise<Reply>;
type FaultMode = 'http_500' | 'reset';

interface PaymentIntent extends Json {
  id: string;
  amount: number;
  currency: string;
  customer: string | null;
  created: number;
  status: string;
  latest_charge: string | null;
}

/** Stripe prunes keys once they are at least 24 hours old; so do we, or a long-running emulator grows forever. */
const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** Real confirms take a moment; this also gives concurrent same-key requests a window to collide in. */
const DEFAULT_AUTHORIZATION_DELAY_MS = 20;

/** Minimum charge amounts for the common currencies (https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts). */
const MINIMUM_AMOUNTS: Record<string, { symbol: string; minimum: number }> = {
  usd: { symbol: '$', minimum: 50 },
  eur: { symbol: '€', minimum: 50 },
  gbp: { symbol: '£', minimum: 30 },
};

const PAYMENT_INTENT_PARAMS = new Set([
  'amount',
  'currency',
  'payment_method',
  'customer',
  'confirm',
  'off_session',
  'description',
  'metadata',
  'receipt_email',
  'statement_descriptor_suffix',
]);
const REFUND_PARAMS = new Set(['payment_intent', 'amount', 'reason', 'metadata']);
const CONFIRM_PARAMS = new Set(['off_session']);
const CANCEL_PARAMS = new Set(['cancellation_reason']);
/** Statuses a PaymentIntent can still be canceled from (Stripe's rule). */
const CANCELABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action', 'processing']);

interface StoredIntent {
  account: string;
  intent: PaymentIntent;
  refunded: number;
  /** The payment method the caller named (a test id such as pm_card_visa, or a fault method). */
  source: string | null;
}

/** Emulator-only: a payment method whose confirm charges the card, then leaves the caller without an answer. */
export const CHARGE_THEN_UNREACHABLE = 'pm_emulator_charge_then_unreachable';
/** Thrown after a side effect whose response is to be lost (connection reset, nothing saved). */
class LostResponse extends Error {}
const LOST: Reply = { status: 0, body: {} };

/** Thrown for requests Stripe rejects before the endpoint starts executing: never saved for idempotent replay. */
class Rejection extends Error {
  constructor(readonly reply: Reply) {
    super(String((reply.body.error as Json).message));
  }
}

function stripeError(status: number, error: Json): Reply {
  if (typeof error.code === 'string') {
    error = { ...error, doc_url: `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, '-')}` };
  }
  return { status, body: { error } };
}

function invalidRequest(message: string, fields: Json = {}, status = 400): Rejection {
  return new Rejection(stripeError(status, { type: 'invalid_request_error', message, ...fields }));
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string, length = 24): string {
  let id = '';
  for (const byte of crypto.randomBytes(length)) id += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${id}`;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** JSON with sorted keys, so parameters compare equal whatever order they were sent in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// ---- parameter parsing (form bodies arrive as strings and nested objects) ----

function rejectUnknown(params: Json, allowed: Set<string>): void {
  for (const name of Object.keys(params)) {
    if (!allowed.has(name)) throw invalidRequest(`Received unknown parameter: ${name}`, { code: 'parameter_unknown', param: name });
  }
}

function requiredString(params: Json, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') {
    throw invalidRequest(`Missing required param: ${name}.`, { code: 'parameter_missing', param: name });
  }
  return stringParam(params, name) as string;
}

function stringParam(params: Json, name: string): string | null {
  const value = params[name];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw invalidRequest(`Invalid string: ${canonical(value)}`, { code: 'parameter_invalid_string', param: name });
  return value;
}

function integerParam(params: Json, name: string): number | null {
  const value = stringParam(params, name);
  if (value === null) return null;
  if (!/^\d{1,15}$/.test(value)) throw invalidRequest(`Invalid integer: ${value}`, { code: 'parameter_invalid_integer', param: name });
  return Number(value);
}

function booleanParam(params: Json, name: string): boolean {
  const value = stringParam(params, name);
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw invalidRequest(`Invalid boolean: ${value}`, { param: name });
}

function metadataParam(params: Json): Record<string, string> {
  const value = params.metadata;
  if (value === undefined || value === '') return {};
  const valid = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
  if (!valid) throw invalidRequest('Invalid metadata: must be a hash of string keys to string values.', { param: 'metadata' });
  return { ...(value as Record<string, string>) };
}

function secretKeyOf(req: Request): string | undefined {
  const header = req.get('authorization') ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  // `curl -u sk_test_...:` sends the key as the Basic auth user name.
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0] || undefined;
  return undefined;
}

function masked(key: string): string {
  return key.length <= 12 ? `${key.slice(0, 3)}***` : `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;
}

// ---- the app ----

export function createStripeEmulatorApp(opts: { authorizationDelayMs?: number } = {}): express.Express {
  const authorizationDelayMs = opts.authorizationDelayMs ?? DEFAULT_AUTHORIZATION_DELAY_MS;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  /** Objects are visible only to the secret key that created them, as with separate Stripe accounts. */
  const intents = new Map<string, StoredIntent>();
  /** `${secret key}\n${Idempotency-Key}` → the first request and, once it has finished, its saved response. */
  const idempotency = new Map<string, IdempotencyEntry>();
  let fault: { mode: FaultMode; remaining: number | null } | null = null;

  const account = (res: Response): string => res.locals.account as string;

  /** Sends a reply, or a saved one (already serialized) byte for byte. */
  function send(req: Request, res: Response, reply: Reply | SavedReply, replayed = false): void {
    if (reply === LOST) return simulateOutage(res, 'reset');
    res.set('Request-Id', randomId('req', 14));
    const key = req.get('idempotency-key');
    if (key) res.set('Idempotency-Key', key);
    if (replayed) res.set('Idempotent-Replayed', 'true');
    res.status(reply.status).type('application/json');
    res.send('json' in reply ? reply.json : JSON.stringify(reply.body));
  }

  function simulateOutage(res: Response, mode: FaultMode): void {
    // A TCP reset with no response: the caller sees ECONNRESET, as when Stripe is unreachable.
    if (mode === 'reset') res.socket?.resetAndDestroy();
    else res.status(500).json({ error: { type: 'api_error', message: 'An unknown error occurred (simulated by the Stripe emulator).' } });
  }

  /** Runs a handler; a Rejection becomes its reply, marked as not to be saved. */
  async function execute(handler: Handler, req: Request, res: Response): Promise<{ reply: Reply; save: boolean }> {
    try {
      return { reply: await handler(req, res), save: true };
    } catch (err) {
      if (err instanceof Rejection) return { reply: err.reply, save: false };
      if (err instanceof LostResponse) return { reply: LOST, save: false };
      throw err;
    }
  }

  /**
   * Stripe's v1 idempotency: the first response after execution begins is saved per
   * (secret key, Idempotency-Key) and replayed verbatim; reusing the key for another
   * endpoint or other parameters is an idempotency_error; a request arriving while the
   * first is still running gets 409. Rejections (validation) are not saved.
   */
  function idempotent(handler: Handler) {
    return async (req: Request, res: Response): Promise<void> => {
      const key = req.get('idempotency-key');
      if (!key) return send(req, res, (await execute(handler, req, res)).reply);
      if (key.length > 255) {
        return send(req, res, invalidRequest('Idempotency-Key is too long: it must be at most 255 characters.').reply);
      }
      const scope = `${account(res)}\n${key}`;
      const endpoint = `${req.method} ${req.path}`;
      const params = canonical(req.body ?? {});
      const previous = idempotency.get(scope);
      if (previous) {
        const error = (status: number, message: string, extra: Json = {}) =>
          send(req, res, stripeError(status, { type: 'idempotency_error', message, ...extra }));
        const tryAnother = `Try using a key other than '${key}' if you meant to execute a different request.`;
        if (previous.endpoint !== endpoint) {
          return error(
            400,
            `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${previous.endpoint}' vs '${endpoint}'). ${tryAnother}`,
          );
        }
        if (previous.params !== params) {
          return error(400, `Keys for idempotent requests can only be used with the same parameters they were first used with. ${tryAnother}`);
        }
        if (!previous.saved) {
          res.set('Stripe-Should-Retry', 'true');
          return error(
            409,
            `There is currently another in-progress request using this idempotent key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
            { code: 'idempotency_key_in_use' },
          );
        }
        return send(req, res, previous.saved, true);
      }

      for (const [oldScope, old] of idempotency) {
        if (Date.now() - old.createdAt < IDEMPOTENCY_KEY_TTL_MS) break; // oldest first: the rest are younger
        idempotency.delete(oldScope);
      }
      const entry: IdempotencyEntry = { createdAt: Date.now(), endpoint, params };
      idempotency.set(scope, entry); // held while running, so concurrent duplicates get 409
      let result;
      try {
        result = await execute(handler, req, res);
      } finally {
        if (!result?.save) idempotency.delete(scope); // nothing executed: a retry may run
      }
      if (result.save) entry.saved = { status: result.reply.status, json: JSON.stringify(result.reply.body) };
      send(req, res, entry.saved ?? result.reply);
    };
  }

  // ---- PaymentIntents ----

  function paymentMethodObject(id: string, testCard: TestCard, customer: string | null): Json {
    return {
      id,
      object: 'payment_method',
      type: 'card',
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: testCard.brand,
        last4: testCard.last4,
        funding: testCard.funding,
        country: 'US',
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 3,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: null },
        networks: { available: [testCard.brand], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: now(),
      customer,
      livemode: false,
      metadata: {},
    };
  }

  async function createPaymentIntent(req: Request, res: Response): Promise<Reply> {
    const params: Json = req.body ?? {};
    rejectUnknown(params, PAYMENT_INTENT_PARAMS);
    requiredString(params, 'amount');
    const amount = integerParam(params, 'amount') as number;
    const currency = requiredString(params, 'currency').toLowerCase();
    if (!/^[a-z]{3}$/.test(currency)) throw invalidRequest(`Invalid currency: ${currency}.`, { param: 'currency' });
    const min = MINIMUM_AMOUNTS[currency];
    if (amount < (min?.minimum ?? 1)) {
      const shown = min ? `${min.symbol}${(min.minimum / 100).toFixed(2)} ${currency}` : `1 (in the smallest ${currency} unit)`;
      throw invalidRequest(`Amount must be at least ${shown}`, { code: 'amount_too_small', param: 'amount' });
    }
    const confirm = booleanParam(params, 'confirm');
    const offSessionRaw = stringParam(params, 'off_session');
    const offSession = offSessionRaw === 'true' || offSessionRaw === 'one_off' || offSessionRaw === 'recurring';
    if (offSessionRaw !== null && !offSession && offSessionRaw !== 'false') {
      throw invalidRequest(`Invalid off_session: ${offSessionRaw}`, { param: 'off_session' });
    }
    const customer = stringParam(params, 'customer');
    const metadata = metadataParam(params);
    const paymentMethodId = stringParam(params, 'payment_method');
    const chargeThenReset = paymentMethodId === CHARGE_THEN_UNREACHABLE;
    const testCard = paymentMethodId === null ? undefined : findTestCard(chargeThenReset ? 'pm_card_visa' : paymentMethodId);
    if (paymentMethodId !== null && !testCard) {
      throw invalidRequest(`No such PaymentMethod: '${paymentMethodId}'`, { code: 'resource_missing', param: 'payment_method' });
    }
    if (confirm && !testCard) {
      throw invalidRequest('You cannot confirm this PaymentIntent because it is missing a payment method.', {
        code: 'parameter_missing',
        param: 'payment_method',
      });
    }

    // Execution begins: from here on the response is saved for idempotent replay.
    const id = randomId('pi');
    const intent: PaymentIntent = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic',
      client_secret: `${id}_secret_${randomId('x').slice(2)}`,
      confirmation_method: 'automatic',
      created: now(),
      currency,
      customer,
      description: stringParam(params, 'description'),
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata,
      next_action: null,
      on_behalf_of: null,
      // Stripe turns a test id such as pm_card_visa into a fresh PaymentMethod.
      payment_method: testCard ? randomId('pm') : null,
      payment_method_options: {},
      payment_method_types: ['card'],
      processing: null,
      receipt_email: stringParam(params, 'receipt_email'),
      review: null,
      setup_future_usage: null,
      shipping: null,
      statement_descriptor: null,
      statement_descriptor_suffix: stringParam(params, 'statement_descriptor_suffix'),
      status: testCard ? 'requires_confirmation' : 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    };
    const stored: StoredIntent = { account: account(res), intent, refunded: 0, source: paymentMethodId };
    intents.set(id, stored);
    if (!confirm || !testCard) return { status: 200, body: intent };
    return confirmIntent(stored, testCard, offSession);
  }

  /** The card's outcome: succeeded, needs authentication, or declined (402 card_error). */
  async function confirmIntent(stored: StoredIntent, testCard: TestCard, offSession: boolean): Promise<Reply> {
    const { intent } = stored;
    const customer = intent.customer;
    await sleep(authorizationDelayMs);
    const outcome = testCard.outcome;
    if (outcome.kind === 'succeeded') {
      Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: randomId('ch') });
      return { status: 200, body: intent };
    }
    if (outcome.kind === 'requires_authentication' && !offSession) {
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
      return { status: 200, body: intent };
    }
    // A card error: the charge failed and the intent waits for another payment method.
    const decline =
      outcome.kind === 'declined'
        ? outcome
        : {
            code: 'authentication_required',
            declineCode: 'authentication_required',
            message: 'Your card was declined. This transaction requires authentication.',
          };
    const charge = randomId('ch');
    const error = stripeError(402, {
      type: 'card_error',
      code: decline.code,
      ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
      message: decline.message,
      charge,
      payment_method: paymentMethodObject(intent.payment_method as string, testCard, customer),
    }).body.error as Json;
    Object.assign(intent, { status: 'requires_payment_method', payment_method: null, latest_charge: charge, last_payment_error: error });
    return { status: 402, body: { error: { ...error, payment_intent: intent } } };
  }

  async function confirmPaymentIntent(req: Request, res: Response): Promise<Reply> {
    const params: Json = req.body ?? {};
    rejectUnknown(params, CONFIRM_PARAMS);
    const stored = ownIntent(res, String(req.params.id), 'intent', 404);
    const chargeThenReset = stored.source === CHARGE_THEN_UNREACHABLE;
    if (chargeThenReset && stored.intent.status === 'succeeded') throw new LostResponse(); // still unreachable
    const offSessionRaw = stringParam(params, 'off_session');
    const offSession = offSessionRaw === 'true' || offSessionRaw === 'one_off' || offSessionRaw === 'recurring';
    if (stored.intent.status !== 'requires_confirmation') {
      throw unexpectedState(stored.intent, 'confirm');
    }
    const reply = await confirmIntent(stored, findTestCard(chargeThenReset ? 'pm_card_visa' : stored.source!)!, offSession);
    // The charge went through, but the answer never arrives (and later confirms find Stripe unreachable).
    if (chargeThenReset) throw new LostResponse();
    return reply;
  }

  function cancelPaymentIntent(req: Request, res: Response): Reply {
    const params: Json = req.body ?? {};
    rejectUnknown(params, CANCEL_PARAMS);
    const { intent } = ownIntent(res, String(req.params.id), 'intent', 404);
    if (!CANCELABLE.has(intent.status)) throw unexpectedState(intent, 'cancel');
    Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: stringParam(params, 'cancellation_reason') });
    return { status: 200, body: intent };
  }

  function unexpectedState(intent: PaymentIntent, action: string): Rejection {
    return invalidRequest(`You cannot ${action} this PaymentIntent because it has a status of ${intent.status}.`, {
      code: 'payment_intent_unexpected_state',
      payment_intent: intent,
    });
  }

  function ownIntent(res: Response, id: string, param: string, status: number) {
    const stored = intents.get(id);
    if (!stored || stored.account !== account(res)) {
      throw invalidRequest(`No such payment_intent: '${id}'`, { code: 'resource_missing', param }, status);
    }
    return stored;
  }

  // ---- Refunds ----

  function createRefund(req: Request, res: Response): Reply {
    const params: Json = req.body ?? {};
    rejectUnknown(params, REFUND_PARAMS);
    const stored = ownIntent(res, requiredString(params, 'payment_intent'), 'payment_intent', 400);
    const { intent } = stored;
    const reason = stringParam(params, 'reason');
    if (reason !== null && !['duplicate', 'fraudulent', 'requested_by_customer'].includes(reason)) {
      throw invalidRequest(`Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer`, { param: 'reason' });
    }
    const metadata = metadataParam(params);
    if (intent.status !== 'succeeded') {
      throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, { param: 'payment_intent' });
    }
    const unrefunded = intent.amount - stored.refunded;
    if (unrefunded === 0) {
      throw invalidRequest(`Charge ${intent.latest_charge} has already been refunded.`, { code: 'charge_already_refunded' });
    }
    const amount = integerParam(params, 'amount') ?? unrefunded;
    if (amount < 1) throw invalidRequest('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
    if (amount > unrefunded) {
      throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${unrefunded})`, { param: 'amount' });
    }

    stored.refunded += amount;
    return {
      status: 200,
      body: {
        id: randomId('re'),
        object: 'refund',
        amount,
        balance_transaction: randomId('txn'),
        charge: intent.latest_charge,
        created: now(),
        currency: intent.currency,
        destination_details: { type: 'card', card: { type: 'refund', reference_status: 'pending', reference_type: 'acquirer_reference_number' } },
        metadata,
        payment_intent: intent.id,
        reason,
        receipt_number: null,
        source_transfer_reversal: null,
        status: 'succeeded',
        transfer_reversal: null,
      },
    };
  }

  // ---- routing ----

  app.use(express.urlencoded({ extended: true, limit: '1mb' }));

  const control = express.Router();
  control.use(express.json());
  control.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  control.post('/faults', (req, res) => {
    const { mode, remaining } = (req.body ?? {}) as { mode?: unknown; remaining?: unknown };
    const validRemaining = remaining === undefined || remaining === null || (Number.isInteger(remaining) && (remaining as number) >= 0);
    if ((mode !== 'none' && mode !== 'http_500' && mode !== 'reset') || !validRemaining) {
      res
        .status(400)
        .json({ error: { type: 'invalid_request_error', message: 'Expected {"mode": "none" | "http_500" | "reset", "remaining"?: non-negative integer}' } });
      return;
    }
    const count = (remaining ?? null) as number | null;
    fault = mode === 'none' || count === 0 ? null : { mode, remaining: count };
    res.json({ mode: fault?.mode ?? 'none', remaining: fault?.remaining ?? null });
  });
  app.use('/__emulator', control);

  // Injected outages come first: when Stripe is down, nothing else is checked.
  app.use('/v1', (req, res, next) => {
    const current = fault;
    if (!current) return next();
    if (current.remaining !== null && --current.remaining === 0) fault = null;
    simulateOutage(res, current.mode);
  });

  app.use('/v1', (req, res, next) => {
    const key = secretKeyOf(req);
    if (!key) {
      const message =
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').";
      res.status(401).json({ error: { type: 'invalid_request_error', message } });
      return;
    }
    if (!/^(sk|rk)_test_\w+$/.test(key)) {
      // Only test-mode secret keys: a live key pointed here is a configuration mistake.
      res.status(401).json({ error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${masked(key)}` } });
      return;
    }
    res.locals.account = key;

    const paymentMethod = (req.body as Json | undefined)?.payment_method;
    if (typeof paymentMethod === 'string' && Object.hasOwn(FAULT_PAYMENT_METHODS, paymentMethod)) {
      return simulateOutage(res, FAULT_PAYMENT_METHODS[paymentMethod as keyof typeof FAULT_PAYMENT_METHODS]);
    }
    next();
  });

  app.post('/v1/payment_intents', idempotent(createPaymentIntent));
  app.post('/v1/payment_intents/:id/confirm', idempotent(confirmPaymentIntent));
  app.post('/v1/payment_intents/:id/cancel', idempotent(cancelPaymentIntent));
  app.post('/v1/refunds', idempotent(createRefund));

  app.get('/v1/payment_intents', (req, res) => {
    const customer = typeof req.query.customer === 'string' ? req.query.customer : undefined;
    const limit = Math.min(Math.max(Number(req.query.limit) || 10, 1), 100);
    const startingAfter = typeof req.query.starting_after === 'string' ? req.query.starting_after : undefined;
    let mine = [...intents.values()]
      .filter((s) => s.account === account(res) && (customer === undefined || s.intent.customer === customer))
      .map((s) => s.intent)
      .reverse(); // newest first, as Stripe lists
    // The page after the given id (an unknown id gives an empty page).
    if (startingAfter !== undefined) mine = mine.slice(mine.findIndex((i) => i.id === startingAfter) + 1 || mine.length);
    send(req, res, { status: 200, body: { object: 'list', data: mine.slice(0, limit), has_more: mine.length > limit, url: '/v1/payment_intents' } });
  });

  app.get('/v1/payment_intents/:id', (req, res) => {
    const retrieve: Handler = () => ({ status: 200, body: ownIntent(res, req.params.id, 'intent', 404).intent });
    return execute(retrieve, req, res).then(({ reply }) => send(req, res, reply));
  });

  app.use((req, res) => {
    const message = `Unrecognized request URL (${req.method}: ${req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`;
    res.status(404).json({ error: { type: 'invalid_request_error', message } });
  });

  // Unparseable bodies and emulator bugs, still in Stripe's error shape so the SDK can read them.
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.status && err.status < 500) {
      res.status(400).json({ error: { type: 'invalid_request_error', message: `Invalid request body: ${err.message}` } });
      return;
    }
    console.error('stripe-emulator:', err);
    res.status(500).json({ error: { type: 'api_error', message: `Stripe emulator error: ${err.message}` } });
  });

  return app;
}

export interface StripeEmulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the emulator; port 0 (the default) picks a free port. */
export function startStripeEmulator(opts: { port?: number; host?: string; authorizationDelayMs?: number } = {}): Promise<StripeEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const app = createStripeEmulatorApp({ authorizationDelayMs: opts.authorizationDelayMs });
  return new Promise((resolve, reject) => {
    const server = app.listen(opts.port ?? 0, host);
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const hostInUrl = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${hostInUrl}:${port}`,
        port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            server.closeAllConnections(); // don't wait for clients' keep-alive sockets
          }),
      });
    });
  });
}
