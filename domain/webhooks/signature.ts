/**
 * Webhook signatures, in Stripe's form: the `Webhook-Signature` header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint's secret>`,
 * with a second `v1=` under the previous secret for a day after a roll. A
 * receiver recomputes the HMAC over the raw body, compares in constant time,
 * and refuses a `t` older than its tolerance (replays). docs/api-behaviour.md,
 * Webhooks, shows the few lines.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { newSecret } from '../../lib/secrets';

export const SIGNATURE_HEADER = 'Webhook-Signature';
/** How old a signed timestamp `verifyWebhookSignature` accepts by default (Stripe's tolerance). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const newSigningSecret = () => newSecret('whsec_');

const hmac = (secret: string, timestamp: number, body: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** The header's value for `body` sent at `timestamp` (seconds), signed with each of `secrets`. */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(',');
}

/** Whether `header` signs `body` with `secret`, at a time within `toleranceSeconds` of `nowSeconds`: what a receiver runs. */
export function verifyWebhookSignature(
  header: string,
  body: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  const parts = header.split(',').map((part) => part.split('=', 2) as [string, string | undefined]);
  const t = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  return parts.some(([key, value]) => {
    if (key !== 'v1' || !value || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, 'hex'), expected);
  });
}
