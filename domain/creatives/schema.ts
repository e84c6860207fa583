import { z } from 'zod';
import { MAX_CARD_TITLE } from './generator';
import { asOneValue, fail, httpUrl, isPlainObject } from '../schema-rules';

/** An ad's creative: a chat card (headline, body, optional image) or a sponsored poll. */
export const CREATIVE_TYPES = ['chat_card', 'poll'] as const;
export type CreativeType = (typeof CREATIVE_TYPES)[number];
export const MAX_POLL_TITLE = 120;

const chatCardInputSchema = z
  .strictObject({
    type: z.literal('chat_card'),
    // Required unless the ad sets auto_generate: checked on the ad (see requireCardTitle).
    title: z.string().min(1).max(MAX_CARD_TITLE).optional(),
    body: z.string().optional(),
    cta: z.string().optional(),
    file_id: z.string().optional().describe('Image uploaded through POST /v1/upload'),
    image_url: z.string().meta({ format: 'uri' }).optional().describe('Public image URL that the service downloads and stores'),
  })
  .superRefine((card, ctx) => {
    if (card.file_id !== undefined && card.image_url !== undefined) {
      fail(ctx, 'invalid_value', 'Send either file_id or image_url, not both', ['file_id']);
    }
  })
  // The refinement above, in the OpenAPI document.
  .meta({ not: { required: ['file_id', 'image_url'] } });

const pollInputSchema = z.strictObject({
  type: z.literal('poll'),
  title: z.string().min(1).max(MAX_POLL_TITLE).describe('The question'),
  options: asOneValue(z.array(z.string().min(1)).min(2).max(4), 'options must be a list of 2 to 4 non-empty strings'),
  target_url: httpUrl(2048, 'target_url must be an absolute http(s) URL'),
});

/** Missing or not an object is `invalid_value` on `creative`; an unknown `type` on `creative.type`. */
export const creativeInputSchema = z.preprocess(
  (value, ctx) => {
    if (!isPlainObject(value)) fail(ctx, 'invalid_value', 'creative must be an object with a type of chat_card or poll');
    return value;
  },
  z.discriminatedUnion('type', [chatCardInputSchema, pollInputSchema]),
);
export type CreativeInput = z.output<typeof creativeInputSchema>;
