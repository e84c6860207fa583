import { signToken, verifyToken } from '../../lib/signed-token';

/**
 * The signed tokens of a delivered poll's `vote_url` and `results_url`. The
 * payload binds the poll (the ad id), the delivery (the auction id) and the
 * kind; lib/signed-token adds the expiry and the HMAC. A vote token is not a
 * results token and vice versa: each is refused on the other endpoint.
 *
 * The auction mints both when it delivers a poll:
 *   `${tracking_url}/api/v1/tracking/sponsored-polls/vote?token=${voteToken}`
 *   `${tracking_url}/api/v1/tracking/sponsored-polls/results?token=${resultsToken}`
 */
export type PollTokenKind = 'vote' | 'results';

export interface PollTokenClaims {
  adId: string;
  auctionId: string;
  kind: PollTokenKind;
}

/** Payload keys are short: the token travels in every poll URL. */
interface Payload extends Record<string, unknown> {
  t: 'poll';
  k: PollTokenKind;
  ad: string;
  au: string;
}

export function mintPollTokens(input: { adId: string; auctionId: string; ttlSeconds: number }): { voteToken: string; resultsToken: string } {
  const sign = (k: PollTokenKind) => signToken({ t: 'poll', k, ad: input.adId, au: input.auctionId } satisfies Payload, input.ttlSeconds);
  return { voteToken: sign('vote'), resultsToken: sign('results') };
}

/**
 * The claims of a genuine, unexpired poll token of the given kind, or null for
 * anything else (malformed, tampered, expired, unknown key, another kind, a
 * token of another URL family): callers answer all of those with one 404.
 */
export function readPollToken(token: unknown, kind: PollTokenKind): PollTokenClaims | null {
  const payload = verifyToken<Payload>(token);
  if (!payload || payload.t !== 'poll' || payload.k !== kind) return null;
  if (typeof payload.ad !== 'string' || typeof payload.au !== 'string' || !payload.au) return null;
  return { adId: payload.ad, auctionId: payload.au, kind };
}
