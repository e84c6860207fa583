import { z } from 'zod';
import { creativeInputSchema, type CreativeInput } from '../creatives/schema';
import { fail, MAX_NAME, resourceId, statusInput, type Ctx } from '../schema-rules';

const adName = z.string().min(1).max(MAX_NAME).describe('Defaults to the creative title');

/** auto_generate is chat_card only; without it a card needs its title. */
function requireCardTitle(ad: { auto_generate?: boolean; creative: CreativeInput }, ctx: Ctx): void {
  if (ad.creative?.type === 'poll') {
    if (ad.auto_generate) fail(ctx, 'poll_cannot_be_ai', 'auto_generate is available for chat_card creatives only', ['auto_generate']);
  } else if (ad.creative?.type === 'chat_card' && !ad.auto_generate && ad.creative.title === undefined) {
    fail(ctx, 'required', 'creative.title is required unless auto_generate is true', ['creative', 'title']);
  }
}

const adFields = {
  name: adName.optional(),
  auto_generate: z.boolean().default(false).describe('chat_card only: the service writes the missing title and body'),
  creative: creativeInputSchema,
};

/** An ad inside an ad group create (standalone or nested in a campaign create). */
export const adInputSchema = z.strictObject(adFields).superRefine(requireCardTitle);
export type AdInput = z.output<typeof adInputSchema>;

/** `POST /v1/ads`. */
export const adCreateSchema = z.strictObject({ ad_group_id: resourceId('ad group'), ...adFields }).superRefine(requireCardTitle);
export type AdCreateInput = z.output<typeof adCreateSchema>;

/**
 * `POST /v1/ads/{ad_id}`. `creative` replaces the whole creative (no
 * auto_generate here, so a card needs its title); its image changes only when
 * the replacement names a new `file_id` or `image_url`.
 */
export const adUpdateSchema = z
  .strictObject({ name: adName.optional(), status: statusInput.optional(), creative: creativeInputSchema.optional() })
  .superRefine((ad, ctx) => {
    if (ad.creative) requireCardTitle({ creative: ad.creative }, ctx);
  });
export type AdUpdateInput = z.output<typeof adUpdateSchema>;
export const adListFilterSchema = z.object({ ad_group_id: resourceId('ad group') });
