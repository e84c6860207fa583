import { z } from 'zod';
import { adRequestSchema } from './request-schema';

/**
 * The auction's OpenAPI 3.1 document, generated from the same zod schema the
 * route validates with (z.toJSONSchema), so the two cannot drift.
 */
const errorObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'param', 'code'],
      properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: 'string' } },
    },
  },
};

let cached: object | undefined;
export function auctionOpenApi(): object {
  cached ??= {
    openapi: '3.1.0',
    info: { title: 'Auction service (chat-host API)', version: '1.0.0' },
    components: {
      securitySchemes: { publisherKey: { type: 'http', scheme: 'bearer', description: 'Publisher key from `adctl publisher create`' } },
      schemas: {
        AdRequest: z.toJSONSchema(adRequestSchema, { io: 'input', unrepresentable: 'any' }),
        Error: errorObject,
      },
    },
    security: [{ publisherKey: [] }],
    paths: {
      '/v1/ad_requests': {
        post: {
          operationId: 'createAdRequest',
          summary: 'Run one auction for an ad opportunity in a conversation',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AdRequest' } } } },
          responses: {
            200: {
              description: 'The auction result; `ad` is null on no fill',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['auction_id', 'ad'],
                    properties: {
                      auction_id: { type: 'string', format: 'uuid' },
                      ad: {
                        oneOf: [
                          { type: 'null' },
                          {
                            type: 'object',
                            required: ['format', 'view_url', 'url', 'feedback_url', 'price'],
                            properties: {
                              format: { enum: ['sponsored_message', 'sponsored_carousel', 'poll'] },
                              view_url: { type: 'string' }, url: { type: 'string' }, feedback_url: { type: 'string' },
                              advertiser: { type: 'string' }, price: { type: 'number', minimum: 0 },
                            },
                          },
                        ],
                      },
                    },
                  },
                },
              },
            },
            400: { description: 'Invalid request', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
            401: { description: 'Missing or unknown publisher key', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          },
        },
      },
    },
  };
  return cached;
}
