/**
 * Size caps of one request (issue 7): each bounds the memory, CPU and rows a
 * single call can cost. Enforced in the request schemas (so the OpenAPI
 * document carries them as maxItems) and, for the totals, by the services.
 * Going over is 400 `invalid_value` naming the array or field.
 */

/** Ads in one ad group, counting those it already has. */
export const MAX_ADS_PER_AD_GROUP = 50;
/** Ad groups in one campaign, counting those it already has. */
export const MAX_AD_GROUPS_PER_CAMPAIGN = 20;
/** Distinct images (file_id or image_url) one request may name; each is loaded and decoded once. */
export const MAX_DISTINCT_IMAGES_PER_REQUEST = 20;
