import { z } from 'zod';
import { defineOperation, type Operation } from '../lib/http/operations';
import { buildOpenApiDocument } from '../lib/http/openapi';
import { adRequestSchema, type AdRequest } from './request-schema';
import { NO_FILL_REASONS } from './publisher/no-fill';
import { SENSITIVE_CATEGORIES } from '../domain/safety';
import { MAX_WHY_THIS_AD_CHARS } from '../domain/privacy/why-this-ad';

/**
 * The auction's one HTTP operation, declared once with the shared mechanism
 * (lib/http/operations.ts): the route is mounted from it and GET
 * /v1/openapi.json is derived from it, request schema included.
 */
const adSchema = z
  .looseObject({
    format: z.enum(['sponsored_message', 'sponsored_carousel', 'poll']).describe('Which creative kind to render (its own fields follow it)'),
    view_url: z.string().describe('The view pixel: fire it once when the ad is viewable (the SDK does, by the MRC rule)'),
    url: z.string().describe('Where a click goes (the tracker, then the destination)'),
    feedback_url: z.string().describe('Where thumbs up/down are posted'),
    advertiser: z.string().optional().describe("The advertiser's name, to show with the Sponsored label"),
    price: z.number().min(0).describe('The winning price (CPM, USD)'),
    why_this_ad: z
      .string()
      .max(MAX_WHY_THIS_AD_CHARS)
      .describe(
        "Our extension: a short text for the host to show on why this ad appears, built only from the conversation's topic (its content categories) and whether the request could be personalized, never from personal data (English)",
      ),
  })
  .describe('The ad to show, with its trackers');

export const adResponseSchema = z.object({
  auction_id: z.uuid().describe("This auction's id (in the trackers and reports)"),
  ad: adSchema.nullable(),
  no_fill_reason: z.enum(NO_FILL_REASONS).optional().describe('Why no ad: present exactly when `ad` is null (docs/api-behaviour.md, no-fill reasons)'),
  sensitive_categories: z
    .array(z.enum(SENSITIVE_CATEGORIES))
    .optional()
    .describe('With `sensitive_conversation`: the sensitive categories that ruled the ad out'),
  test: z.literal(true).optional().describe("A sandbox publisher's answer: nothing is billed or counted"),
});

export function adRequestOperation(handle: Operation<undefined, AdRequest>['handle']): Operation {
  return defineOperation({
    id: 'createAdRequest',
    method: 'post',
    path: '/v1/ad_requests',
    tag: 'Auction',
    summary: 'Run one first-price auction for an ad opportunity in a conversation; `ad` is null on no fill',
    auth: 'publisherKey',
    body: adRequestSchema,
    success: { status: 200, description: 'The auction result', schema: adResponseSchema },
    // The publisher key's rate limit (auction/publisher/rate-limit.ts): 429 with Retry-After.
    errors: ['rate_limit_exceeded'],
    handle,
  });
}

export const auctionOpenApi = (operations: Operation[]) => buildOpenApiDocument(operations, { title: 'Auction service (chat-host API)', version: '1.0.0' });
