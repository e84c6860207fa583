import type { Operation } from '../../lib/http/operations';
import { testAdGroupRelevance } from '../../domain/relevance/hint-test';
import type { UseCaseDeps } from '../../use-cases/deps';
import { relevanceTestContract } from '../ad-groups/relevance-test';
import { dashboardOperation } from './operation';
import { memberOf } from './session-cookie';

/**
 * The campaign page's "Test your hints" form: the relevance test of
 * `POST /v1/ad_groups/{id}/test_relevance` (domain/relevance/hint-test.ts),
 * for a signed-in member of the ad group's organization. Nothing is saved.
 */
export const relevanceTestDashboardOperation = ({ db }: Pick<UseCaseDeps, 'db'>): Operation =>
  dashboardOperation({
    ...relevanceTestContract,
    id: 'dashboardTestAdGroupRelevance',
    path: '/ad-groups/:id/test-relevance',
    summary: 'Score an ad group against a conversation, as POST /v1/ad_groups/{id}/test_relevance does (nothing is saved)',
    handle: async ({ params, body }, _req, res) => testAdGroupRelevance(db, memberOf(res).organizationId, params.id, body),
  });
