import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { DomainError } from '../../lib/errors';
import { errorHandler } from '../../lib/http/errors';
import { defineOperation, mountOperations, type Operation } from '../../lib/http/operations';
import { FEEDBACK_REASONS, type DeliveryLedgerWriter, type DeliveryEventType } from '../../domain/delivery/ledger';
import type { TokenObserver } from '../../domain/delivery/metrics';
import { judgeTrackedRequest, type InvalidTrafficReason } from '../../domain/delivery/invalid-traffic';
import { clientIp } from '../../domain/events/client-ip';
import { config } from '../../lib/config';
import { readDeliveryToken, TRACKING_PATHS, withClickId, type DeliveryClaims, type DeliveryTokenKind } from '../../domain/delivery/tracking-token';

/**
 * `{tracking_url}` view, click and feedback trackers: the signed token in the
 * query string is the authorization (domain/delivery/tracking-token.ts). Each
 * records its event in the delivery ledger (committed before the answer) and
 * charges the campaign there; a repeat, an expired or a tampered token counts
 * nothing. HEAD requests (link unfurlers, prefetchers) never count.
 */

/** The smallest transparent GIF: what the pixel answers whenever it does not redirect. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const tokenQuery = z.object({ token: z.string().describe('The signed token of the delivered URL') });
const feedbackBody = z.object({
  feedback: z.enum(['thumbs_up', 'thumbs_down']).describe("The user's verdict on the ad"),
  reason: z.enum(FEEDBACK_REASONS).optional().describe('Why, if the user said (a fixed list: no free text); stored with the verdict and forwarded to the DSP'),
});
const linkNotFound = () => new DomainError('not_found', 'Link expired or not found', 'token');

const isHttpUrl = (value: string | undefined): value is string => {
  if (!value) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

function noStore(res: Response) {
  res.set('Cache-Control', 'no-store');
  // The token must not travel on to the next site in a Referer header.
  res.set('Referrer-Policy', 'no-referrer');
}

const counts = (req: Request) => req.method !== 'HEAD';

/** The pixel's answer whenever it does not redirect, written directly (the same headers res.send would write): the busiest response there is. */
function writePixel(res: ServerResponse): void {
  res.writeHead(200, {
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Type': 'image/gif',
    'Content-Length': PIXEL.length,
  });
  res.end(PIXEL);
}

/** Whether the pixel's or click's request is invalid traffic against its auction (domain/delivery/invalid-traffic.ts). */
const invalidOf = (req: IncomingMessage, claims: DeliveryClaims): InvalidTrafficReason | null =>
  judgeTrackedRequest(claims, {
    userAgent: req.headers['user-agent'],
    ip: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustedProxies),
  });

/** A tracker's token, counted by its form (api_tracking_tokens_total); `none` when missing or unreadable. */
const countedTokenReader = (tokens: TokenObserver) => (value: unknown, kind: DeliveryTokenKind) => {
  const token = readDeliveryToken(value, kind);
  tokens.read(kind, token?.form ?? 'none');
  return token;
};

export function deliveryTrackingOperations(ledger: DeliveryLedgerWriter, tokens: TokenObserver): Operation[] {
  const record = (type: DeliveryEventType, claims: DeliveryClaims, req?: IncomingMessage) =>
    ledger.record({ type, claims, time: new Date(), invalid: req ? invalidOf(req, claims) : null });
  const readToken = countedTokenReader(tokens);

  /** The view pixel: the plain request of one of our own ads, the busiest there is, and any other form. */
  async function trackView(tokenValue: unknown, req: Request, res: Response): Promise<void> {
    const token = readToken(tokenValue, 'view');
    if (token && !token.expired && counts(req)) {
      const outcome = await record('impression', token.claims, req);
      if (outcome.recorded && isHttpUrl(token.claims.dsp_view_url)) {
        noStore(res);
        return void res.redirect(302, token.claims.dsp_view_url);
      }
    }
    writePixel(res);
  }

  return [
    defineOperation({
      id: 'trackView',
      method: 'get',
      path: TRACKING_PATHS.view,
      tag: 'Delivery tracking',
      auth: 'none',
      summary: 'Impression pixel: records one impression per auction and charges CPM campaigns',
      // Optional: the pixel answers whatever it is given; only a genuine token counts.
      query: z.object({ token: tokenQuery.shape.token.optional() }),
      handlerValidatesQuery: true,
      success: { status: 200, description: 'A 1x1 transparent GIF, whatever the token, even none (a pixel never breaks its page)' },
      moreResponses: { 302: { description: "First impression of a DSP's ad: on to the DSP's own impression pixel" } },
      handle: (_input, req, res) => trackView(req.query.token, req, res),
    }),
    defineOperation({
      id: 'trackClick',
      method: 'get',
      path: TRACKING_PATHS.click,
      tag: 'Delivery tracking',
      auth: 'none',
      summary: 'Click-through: records the click (CPC charged once per auction), then redirects to the signed destination',
      query: tokenQuery,
      success: {
        status: 302,
        description:
          "On to the ad's destination: the DSP's click URL (with its view_url appended), or our advertiser's page with `ad_click_id` appended " +
          "(send it back as an event's `click_id` to attribute the conversion). An expired link still redirects, counting nothing.",
      },
      errors: ['required', 'not_found'],
      async handle({ query }, req, res) {
        const token = readToken(query.token, 'click');
        // Only a target we signed is ever redirected to: no open redirect.
        if (!token || !isHttpUrl(token.claims.url)) throw linkNotFound();
        if (!token.expired && counts(req)) await record('click', token.claims, req);
        noStore(res);
        // Our advertisers' pages get the click id to send back with a conversion; a DSP's click URL is the DSP's.
        res.redirect(302, token.claims.source === 'inhouse' ? withClickId(token.claims.url, token.claims.auction_id) : token.claims.url);
      },
    }),
    defineOperation({
      id: 'trackFeedback',
      method: 'post',
      path: TRACKING_PATHS.feedback,
      tag: 'Delivery tracking',
      auth: 'none',
      summary: "Thumbs up or down on a delivered ad: recorded once per auction and forwarded to the DSP's feedback_url in the background",
      query: tokenQuery,
      body: feedbackBody,
      success: { status: 204, description: 'Recorded (a later verdict for the same auction changes nothing)' },
      errors: ['required', 'invalid_value', 'not_found'],
      async handle({ query, body }, _req, res) {
        const token = readToken(query.token, 'feedback');
        if (!token || token.expired) throw linkNotFound();
        await ledger.record({ type: body.feedback, claims: token.claims, time: new Date(), reason: body.reason });
        noStore(res);
        res.status(204).end();
      },
    }),
  ];
}

/** The trackers' routes; their errors (405 too) in the `/v1` error object, not the platform envelope of other `/api` paths. */
export function deliveryTrackingRoutes(operations: Operation[]): Router {
  const router = mountOperations(operations);
  router.use(
    operations.map((op) => op.path),
    errorHandler,
  );
  return router;
}
