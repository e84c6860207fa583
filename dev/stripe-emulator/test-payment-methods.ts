/**
 * Stripe's documented test PaymentMethods (https://docs.stripe.com/testing) and
 * what confirming a PaymentIntent with each of them does in test mode.
 */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay';

export type Outcome =
  | { kind: 'succeeded' }
  /** A card error (HTTP 402). `declineCode` only where the docs give one ("n/a" otherwise). */
  | { kind: 'declined'; code: string; declineCode?: string; message: string }
  /** 3D Secure: `requires_action` on-session; an `authentication_required` decline off-session. */
  | { kind: 'requires_authentication' };

export interface TestCard {
  brand: CardBrand;
  last4: string;
  funding: 'credit' | 'debit' | 'prepaid';
  outcome: Outcome;
}

const ok: Outcome = { kind: 'succeeded' };
const DECLINED = 'Your card was declined.';

function declined(declineCode: string, message = DECLINED): Outcome {
  return { kind: 'declined', code: 'card_declined', declineCode, message };
}

function card(brand: CardBrand, last4: string, outcome: Outcome = ok, funding: TestCard['funding'] = 'credit'): TestCard {
  return { brand, last4, funding, outcome };
}

const genericDecline = card('visa', '0002', declined('generic_decline'));
const insufficientFunds = card('visa', '9995', declined('insufficient_funds', 'Your card has insufficient funds.'));
const lostCard = card('visa', '9987', declined('lost_card'));
const stolenCard = card('visa', '9979', declined('stolen_card'));
const fraudulent = card('visa', '0019', declined('fraudulent'));

// Current docs spell most declines `pm_card_visa_chargeDeclined*`; the older
// `pm_card_chargeDeclined*` spellings (from the `tok_chargeDeclined*` tokens) still work.
const TABLE: Record<string, TestCard> = {
  // Successful payments, by brand.
  pm_card_visa: card('visa', '4242'),
  pm_card_visa_debit: card('visa', '5556', ok, 'debit'),
  pm_card_mastercard: card('mastercard', '4444'),
  pm_card_mastercard_debit: card('mastercard', '8210', ok, 'debit'),
  pm_card_mastercard_prepaid: card('mastercard', '5100', ok, 'prepaid'),
  pm_card_amex: card('amex', '8431'),
  pm_card_discover: card('discover', '1117'),
  pm_card_diners: card('diners', '0004'),
  pm_card_jcb: card('jcb', '0505'),
  pm_card_unionpay: card('unionpay', '0005'),
  pm_card_visa_cartesBancaires: card('visa', '1001'),
  pm_card_mastercard_cartesBancaires: card('mastercard', '1001'),
  pm_card_bypassPending: card('visa', '0077'),
  pm_card_bypassPendingInternational: card('visa', '0278'),
  pm_card_riskLevelElevated: card('visa', '9235'),

  // Issuer declines.
  pm_card_visa_chargeDeclined: genericDecline,
  pm_card_chargeDeclined: genericDecline,
  pm_card_visa_chargeDeclinedInsufficientFunds: insufficientFunds,
  pm_card_chargeDeclinedInsufficientFunds: insufficientFunds,
  pm_card_visa_chargeDeclinedLostCard: lostCard,
  pm_card_chargeDeclinedLostCard: lostCard,
  pm_card_visa_chargeDeclinedStolenCard: stolenCard,
  pm_card_chargeDeclinedStolenCard: stolenCard,
  pm_card_chargeDeclinedExpiredCard: card('visa', '0069', {
    kind: 'declined',
    code: 'expired_card',
    message: 'Your card has expired.',
  }),
  pm_card_chargeDeclinedIncorrectCvc: card('visa', '0127', {
    kind: 'declined',
    code: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
  }),
  pm_card_chargeDeclinedProcessingError: card('visa', '0119', {
    kind: 'declined',
    code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  }),
  pm_card_visa_chargeDeclinedVelocityLimitExceeded: card(
    'visa',
    '6975',
    declined('card_velocity_exceeded', 'Your card was declined for making repeated attempts too frequently or exceeding its amount limit.'),
  ),
  // Attaches to a Customer fine, but charging it fails.
  pm_card_chargeCustomerFail: card('visa', '0341', declined('generic_decline')),

  // Fraud: issuer-flagged and Radar-blocked payments.
  pm_card_visa_chargeDeclinedFraudulent: fraudulent,
  pm_card_chargeDeclinedFraudulent: fraudulent,
  pm_card_radarBlock: fraudulent,

  // 3D Secure. We model no saved setups, so "unless set up" always asks too.
  pm_card_authenticationRequired: card('visa', '3184', { kind: 'requires_authentication' }),
  pm_card_authenticationRequiredOnSetup: card('visa', '3155', { kind: 'requires_authentication' }),
};

// A Map, so ids like `constructor` or `__proto__` are never found on a prototype.
const BY_ID = new Map(Object.entries(TABLE));

export function findTestCard(paymentMethod: string): TestCard | undefined {
  return BY_ID.get(paymentMethod);
}

/**
 * Emulator-only payment methods that simulate Stripe being down for that one
 * request, so a caller in another process can test its outage path without
 * disturbing anything else using the same emulator.
 */
export const FAULT_PAYMENT_METHODS = {
  pm_emulator_http_500: 'http_500',
  pm_emulator_unreachable: 'reset',
} as const;
