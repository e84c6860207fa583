/**
 * Operators find every workflow of a campaign in the Temporal UI by what they
 * know (issue 25, section 4): creation, review, lifecycle and creative review
 * carry `CampaignId`, `CampaignName` (Keyword, exact) and `OrganizationPublicId`,
 * and the creation workflow's id holds the campaign id. Queried the way the UI's
 * filter does, through the visibility store (`workflow.list`).
 */
import { createTemporalClient } from '../lib/temporal';
import { campaignCreation, campaignCreationWorkflowId } from '../workflows/campaign-creation';
import { sha256Hex } from '../lib/hash';
import { parseOrThrow } from '../lib/validation';
import { campaignCreateSchema } from '../domain/campaigns/campaign-schema';
import { organizationIdOf } from './support/fixtures';
import { campaignLifecycle, campaignLifecycleWorkflowId, scheduleChangedSignal } from '../workflows/campaign-lifecycle';
import { campaignSearchAttributes } from '../workflows/search-attributes';
import { temporalConfig } from '../temporal.config';
import { creativeReviewWorkflowId } from '../workflows/creative-review';
import { adctl } from './support/cli';
import { call, newOrg, useHarness } from './support/harness';
import { eventually } from './support/wait';

const h = useHarness();
let approved: { campaignId: string; name: string; organizationPublicId: string } | undefined;
const temporal = createTemporalClient();
const started: string[] = [];

beforeAll(async () => {});
afterAll(async () => {
  await Promise.allSettled(started.map((id) => temporal.workflow.getHandle(id).terminate('test cleanup')));
  await temporal.connection.close();
});

const body = (name: string) => ({
  name,
  budget: { lifetime_spend_limit_micros: 25_000_000 },
  ad_groups: [
    { name: 'Runners', context_hints: ['running'], ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] },
  ],
});

/** The workflow types a visibility query finds, once all of `expected` show (visibility lags the start a little). */
async function typesFound(query: string, expected: string[]): Promise<string[]> {
  const list = async () => {
    const types: string[] = [];
    for await (const wf of temporal.workflow.list({ query })) types.push(wf.type);
    return types.sort();
  };
  return eventually(list, (types) => expected.every((t) => types.includes(t)), { timeoutMs: 20_000, everyMs: 250 });
}

test("a campaign's creation, review, lifecycle and creative review are found by name, campaign id and organization public id", async () => {
  const org = await newOrg(h.db);
  const name = `Search attributes ${process.pid}-${Date.now()}`;
  const headers = { 'Idempotency-Key': `search-${process.pid}-${Date.now()}` };
  const created = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: body(name), headers });
  expect(created.status).toBe(201);
  const campaignId: string = created.body.id;
  // The creation's id holds the campaign id; a retry under the key finds the same run and campaign.
  const creation = await temporal.workflow.getHandle(campaignCreationWorkflowId(campaignId)).describe();
  expect({ id: creation.workflowId, type: creation.type, status: creation.status.name }).toEqual({
    id: `campaign-create-${campaignId}`,
    type: 'campaignCreation',
    status: 'COMPLETED',
  });
  const retried = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: body(name), headers });
  expect([retried.status, retried.body.id]).toEqual([201, campaignId]);

  // Approval starts the lifecycle; a changed creative of the approved campaign its creative review.
  expect((await adctl('review', 'approve', campaignId)).code).toBe(0);
  started.push(campaignLifecycleWorkflowId(campaignId));
  const group = await call(h.url, 'GET', `/v1/ad_groups?campaign_id=${campaignId}`, { token: org.api_key });
  const ads = await call(h.url, 'GET', `/v1/ads?ad_group_id=${group.body.data[0].id}`, { token: org.api_key });
  const adId: string = ads.body.data[0].id;
  started.push(creativeReviewWorkflowId(adId));
  const edited = await call(h.url, 'POST', `/v1/ads/${adId}`, { token: org.api_key, body: { creative: { type: 'chat_card', title: 'Run further' } } });
  expect(edited.status).toBe(200);

  const all = ['campaignCreation', 'campaignLifecycle', 'campaignReview', 'creativeReview'];
  expect(await typesFound(`CampaignName = '${name}'`, all)).toEqual(all);
  expect(await typesFound(`CampaignId = '${campaignId}'`, all)).toEqual(all);
  expect(await typesFound(`OrganizationPublicId = '${org.org_public_id}' AND CampaignId = '${campaignId}'`, all)).toEqual(all);
  // Keyword: exact, not a word match.
  expect(await typesFound(`CampaignName = '${name.slice(0, -1)}'`, [])).toEqual([]);
  const review = await temporal.workflow.getHandle(`campaign-review-${campaignId}`).describe();
  expect(review.searchAttributes).toMatchObject({ CampaignId: [campaignId], CampaignName: [name], OrganizationPublicId: [org.org_public_id] });
  approved = { campaignId, name, organizationPublicId: org.org_public_id };
});

/** gRPC's status code for a call whose deadline passed (the cause of a Temporal ServiceError). */
const GRPC_DEADLINE_EXCEEDED = 4;

test('a lifecycle that continues as new keeps its search attributes', async () => {
  const { campaignId, name, organizationPublicId } = approved!;
  // A second lifecycle of the approved campaign (its own id), with a history limit low enough that two signals pass it.
  const workflowId = `${campaignLifecycleWorkflowId(campaignId)}-continued-${process.pid}`;
  started.push(workflowId);
  const handle = await temporal.workflow.start(campaignLifecycle, {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId,
    args: [{ campaignId, historyLimit: 12 }],
    searchAttributes: campaignSearchAttributes({ campaignId, campaignName: name, organizationPublicId }),
  });
  const row = await h.db.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  const change = { startTime: row.startTime.toISOString(), endTime: row.endTime?.toISOString() ?? null };
  const latest = await eventually(
    async () => {
      try {
        await handle.signal(scheduleChangedSignal, change);
        return await temporal.workflow.getHandle(workflowId).describe();
      } catch (err) {
        // A busy machine can let a call's deadline pass (gRPC DEADLINE_EXCEEDED): the signal is sent again on the next read.
        if ((err as { cause?: { code?: number } }).cause?.code === GRPC_DEADLINE_EXCEEDED) return null;
        throw err;
      }
    },
    (run) => run !== null && run.runId !== handle.firstExecutionRunId,
    { timeoutMs: 30_000, everyMs: 500, what: 'a continued run' },
  );
  expect(latest!.searchAttributes).toMatchObject({ CampaignId: [campaignId], CampaignName: [name], OrganizationPublicId: [organizationPublicId] });
});

test('a run started under the old workflow id (campaign-create-<org>-<key digest>) still answers a retry under its key', async () => {
  const org = await newOrg(h.db);
  const organizationId = await organizationIdOf(h.db, org);
  const key = `legacy-${process.pid}-${Date.now()}`;
  const name = `Legacy run ${process.pid}-${Date.now()}`;
  const { id: adAccountId } = await h.db.adAccount.findFirstOrThrow({ where: { organizationId } });
  // As the api started it before: no campaign id in the input (the workflow draws one), no search attributes.
  const legacy = await temporal.workflow.start(campaignCreation, {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: `campaign-create-${organizationId}-${sha256Hex(key).slice(0, 40)}`,
    args: [{ organizationId, adAccountId, body: parseOrThrow(campaignCreateSchema, body(name)) }],
  });
  const result = await legacy.result();
  expect(result.ok).toBe(true);
  const retried = await call(h.url, 'POST', '/v1/campaigns', { token: org.api_key, body: body(name), headers: { 'Idempotency-Key': key } });
  expect([retried.status, retried.body.id]).toEqual([201, result.ok ? result.campaignId : null]);
  expect(await h.db.campaign.count({ where: { organizationId } })).toBe(1);
});
