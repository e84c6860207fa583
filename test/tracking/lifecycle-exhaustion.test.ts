/**
 * Real budget exhaustion ends a campaign: impressions tracked through the api
 * spend the budget, the charge that exhausts it signals the campaign's
 * lifecycle workflow (on the dev Temporal server, the suite's worker), and the
 * campaign becomes completed; /v1 then refuses to reactivate it.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { createTemporalClient } from '../../lib/temporal';
import { adctl } from '../support/cli';
import { campaignLifecycleWorkflowId } from '../../workflows/campaign-lifecycle';
import { startCampaignLifecycle } from '../../workflows/clients/campaign-lifecycle';
import { call, errorBody, newOrg, useHarness } from '../support/harness';
import { until } from '../support/wait';
import { deliverableCampaign, get, spendOf, trackerUrl } from './support';

const temporal = createTemporalClient();
const h = useHarness([temporal.connection]);

test('the impression that spends the budget completes the campaign (budget_exhausted)', async () => {
  const org = await newOrg(h.db);
  const c = await deliverableCampaign(h.db, org, { limitMicros: 990_000n, maxBidMicros: 400_000_000n });
  expect(await startCampaignLifecycle(temporal, c.campaign.id)).toEqual({ started: true });

  for (let i = 0; i < 3; i += 1) expect((await get(trackerUrl(h.url, 'view', c.claims(400_000_000)))).status).toBe(200);
  expect((await spendOf(h.db, c.campaign.id)).spent).toBe(990_000n); // 400k, 400k, then the 190k left

  const handle = temporal.workflow.getHandle(campaignLifecycleWorkflowId(c.campaign.id));
  expect(await handle.result()).toStrictEqual({ state: 'completed', reason: 'budget_exhausted' });
  await until(async () => (await h.db.campaign.findUniqueOrThrow({ where: { id: c.campaign.id } })).lifecycleState === 'completed', 'the campaign completed');

  const read = await call(h.url, 'GET', `/v1/campaigns/${c.campaign.id}`, { token: org.api_key });
  expect(read.body.status).toBe('paused');
  const activate = await call(h.url, 'POST', `/v1/campaigns/${c.campaign.id}/activate`, { token: org.api_key });
  expect(activate.status).toBe(400);
  expect(activate.body).toEqual(errorBody('campaign_terminal'));
}, 60_000);

test('adctl lifecycle backfill starts the workflow of each approved campaign that has none, and only once', async () => {
  const org = await newOrg(h.db);
  const approved = await deliverableCampaign(h.db, org);
  const inReview = await deliverableCampaign(h.db, org);
  await h.db.campaign.update({ where: { id: inReview.campaign.id }, data: { reviewStatus: 'in_review' } });

  const first = await adctl('lifecycle', 'backfill', '--org', org.org_public_id);
  expect({ code: first.code, out: JSON.parse(first.stdout) }).toEqual({ code: 0, out: { campaigns: 1, started: 1 } });
  const handle = temporal.workflow.getHandle(campaignLifecycleWorkflowId(approved.campaign.id));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await expect(temporal.workflow.getHandle(campaignLifecycleWorkflowId(inReview.campaign.id)).describe()).rejects.toThrow(WorkflowNotFoundError);

  const again = await adctl('lifecycle', 'backfill', '--org', org.org_public_id);
  expect(JSON.parse(again.stdout)).toEqual({ campaigns: 1, started: 0 });
  await handle.terminate('test over');
}, 60_000);
