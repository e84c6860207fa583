import { z } from 'zod';
import type { Db } from '../../lib/db';
import { defineOperation, type Operation } from '../../lib/http/operations';
import type { ErrorCode } from '../../lib/http/error-codes';
import { FEATURES } from '../../domain/relevance/score';
import { relevanceTestSchema, testAdGroupRelevance } from '../../domain/relevance/hint-test';
import { organizationOf } from '../auth/api-key-auth';

const score = z.number().min(0).max(1);

/** The answer of a relevance test (domain/relevance/hint-test.ts). */
export const relevanceTestResultSchema = z.object({
  ad_group_id: z.string(),
  relevance: score.describe('How relevant the ad group is to the conversation now, 0 to 1 (4 decimals)'),
  relevant: z.boolean().describe('Whether the exact score reaches min_relevance: its ads could bid for this conversation'),
  min_relevance: score.describe("The bar a group's score must reach (a publisher may set a higher one)"),
  signals: z
    .object(Object.fromEntries(FEATURES.map((name) => [name, z.number()])) as Record<(typeof FEATURES)[number], z.ZodNumber>)
    .describe('What the score is made of (docs/relevance.md), 4 decimals'),
  context_hints: z.array(z.string()).describe("The hints scored: the ones sent, else the ad group's"),
  ad_id: z.string().nullable().describe("The ad whose creative was read with the hints: the group's first with an approved creative, else its first"),
});

/** What every surface's relevance test declares alike: the body, the answer, the errors (the dashboard's too: api/dashboard/relevance.ts). */
export const relevanceTestContract = {
  method: 'post' as const,
  body: relevanceTestSchema,
  success: { status: 200, description: 'The score', schema: relevanceTestResultSchema },
  errors: ['required', 'invalid_value', 'string_too_long', 'not_found'] satisfies ErrorCode[] as ErrorCode[],
};

/** `POST /v1/ad_groups/{id}/test_relevance`: an advertiser tries its hints against a conversation before spending. */
export const relevanceTestOperation = (db: Db): Operation =>
  defineOperation({
    ...relevanceTestContract,
    id: 'testAdGroupRelevance',
    path: '/v1/ad_groups/:id/test_relevance',
    tag: 'Ad groups',
    auth: 'apiKey',
    summary: "Score an ad group's relevance to a conversation, as the auction would (nothing is saved)",
    handle: async ({ params, body }, _req, res) => testAdGroupRelevance(db, organizationOf(res), params.id, body),
  });
