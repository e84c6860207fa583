import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../domain/errors';
import { CampaignCreationAbandoned, deleteCampaignTree, persistCampaignTree, type NewCampaignTree } from '../domain/campaigns/creation';
import type { TreeDeps } from '../domain/campaigns/tree';

export type PersistCampaignTreeInput = NewCampaignTree;

/**
 * The creation saga's tree step and compensation (domain/campaigns/creation.ts).
 * Errors that no retry can fix are final: a name taken (`name_conflict`), a
 * spec error in the tree (`invalid_request`, carrying the error), a rolled-back id.
 */
function final(err: unknown): unknown {
  if (err instanceof CampaignCreationAbandoned) return ApplicationFailure.nonRetryable(err.message, 'abandoned');
  if (!(err instanceof DomainError)) return err;
  if (err.code === 'name_conflict') return ApplicationFailure.nonRetryable(err.message, 'name_conflict');
  return ApplicationFailure.nonRetryable(err.message, 'invalid_request', { code: err.code, message: err.message, param: err.param });
}

export function campaignTreeActivities(deps: TreeDeps) {
  return {
    async persistCampaignTree(input: PersistCampaignTreeInput): Promise<void> {
      try {
        await persistCampaignTree(deps, input);
      } catch (err) {
        throw final(err);
      }
    },
    deleteCampaignTree: (campaignId: string): Promise<void> => deleteCampaignTree(deps, campaignId),
  };
}
