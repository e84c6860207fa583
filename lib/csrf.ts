import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of dashboard sessions: HMAC-SHA256 of a fixed label keyed with
 * the session token itself. Only a page served to the session's holder learns
 * it (the session cookie is HttpOnly), nothing is stored, and a new session
 * gets a new token. Every state change must echo it (header or form field).
 */
const LABEL = 'dashboard-csrf-v1';

export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(LABEL).digest('base64url');
}

/** Constant-time check of a token sent with a request. */
export function csrfTokenMatches(sessionToken: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
