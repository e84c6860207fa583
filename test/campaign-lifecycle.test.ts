/**
 * The campaign lifecycle (issue 9): the `campaignLifecycle` workflow on the
 * time-skipping test server with the real activities (end_time, a moved
 * end_time, budget exhaustion against real `campaign_spend` rows), and on the
 * dev server through the real approval, /v1 and `adctl review block`.
 */
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { loadIndexedAds } from '../auction/inhouse/ad-index';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { until } from './support/wait';
import { createAssetStore } from '../lib/asset-store';
import { createStripeClient } from '../lib/stripe';
import { createTemporalClient } from '../lib/temporal';
import { campaignLifecycle, campaignLifecycleWorkflowId, lifecycleQuery } from '../workflows/campaign-lifecycle';
import { signalBudgetExhausted, signalScheduleChanged, startCampaignLifecycle } from '../workflows/clients/campaign-lifecycle';
import { adctl, pipBinary } from './support/cli';
import { insertTree } from './support/fixtures';
import { call, newOrg, useHarness } from './support/harness';
import { startAuction, type AuctionHarness } from './auction/support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const h = useHarness();

const campaignRow = (id: string) => h.db.campaign.findUniqueOrThrow({ where: { id } });

/** An approved, active campaign with one ad, written straight into PostgreSQL. */
async function liveCampaign(startTime: Date, endTime: Date | null) {
  const org = await newOrg(h.db);
  return insertTree(h.db, org, { campaign: { status: 'active', reviewStatus: 'approved', startTime, endTime, lifetimeSpendLimitMicros: 2_000_000n } });
}

describe('campaignLifecycle on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `campaign-lifecycle-test-${randomUUID()}`;

  beforeAll(async () => {
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
    });
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: pipBinary('temporal-test-server') } },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: createActivities({ db: h.db, stripe: createStripeClient(), assets: createAssetStore(), creatives: createCreativeGenerator() }),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  const start = (campaignId: string) =>
    env.client.workflow.start(campaignLifecycle, {
      taskQueue,
      workflowId: campaignLifecycleWorkflowId(campaignId),
      args: [{ campaignId }],
    });

  test('a campaign that reaches its end_time becomes completed (ended)', async () => {
    const now = await env.currentTimeMs();
    const { campaign } = await liveCampaign(new Date(now + HOUR), new Date(now + DAY));
    const handle = await start(campaign.id);
    await env.sleep(2 * HOUR); // past start_time: serving (the index gates on the clock; the workflow records it)
    expect(await handle.query(lifecycleQuery)).toMatchObject({ phase: 'serving', budgetChecks: 0 });
    expect((await campaignRow(campaign.id)).lifecycleState).toBeNull();

    expect(await handle.result()).toStrictEqual({ state: 'completed', reason: 'ended' });
    // The durable timers really ran, in skipped time.
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(now + DAY);
    const row = await campaignRow(campaign.id);
    expect(row.lifecycleState).toBe('completed');
    expect(row.lifecycleReason).toBe('ended');
    expect(row.lifecycleChangedAt).not.toBeNull();
    expect(row.status).toBe('active'); // the advertiser's own status is kept; /v1 reads it as paused
  });

  test('a scheduleChanged signal that moves end_time later keeps it running past the old end', async () => {
    const now = await env.currentTimeMs();
    const { campaign } = await liveCampaign(new Date(now - HOUR), new Date(now + DAY));
    const handle = await start(campaign.id);

    // What the /v1 update route does: the row first, then the signal.
    const laterEnd = new Date(now + 3 * DAY);
    const updated = await h.db.campaign.update({ where: { id: campaign.id }, data: { endTime: laterEnd } });
    expect(await signalScheduleChanged(env.client, updated)).toBe(true);

    await env.sleep(2 * DAY); // past the old end, before the new one
    expect((await campaignRow(campaign.id)).lifecycleState).toBeNull();
    expect(await handle.query(lifecycleQuery)).toMatchObject({ phase: 'serving', endTime: laterEnd.toISOString() });
    expect((await handle.describe()).status.name).toBe('RUNNING');

    expect(await handle.result()).toStrictEqual({ state: 'completed', reason: 'ended' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(laterEnd.getTime());
    expect((await campaignRow(campaign.id)).lifecycleState).toBe('completed');
  });

  test('a long-lived campaign continues as new, keeping its history bounded, and still completes at its end', async () => {
    const now = await env.currentTimeMs();
    const { campaign } = await liveCampaign(new Date(now - HOUR), new Date(now + 10 * DAY));
    // 40 six-hourly re-reads of the campaign: far past a limit of 60 events.
    const handle = await env.client.workflow.start(campaignLifecycle, {
      taskQueue,
      workflowId: campaignLifecycleWorkflowId(campaign.id),
      args: [{ campaignId: campaign.id, historyLimit: 60 }],
    });
    expect(await handle.result()).toStrictEqual({ state: 'completed', reason: 'ended' });
    const last = await handle.describe(); // the handle follows the chain of runs
    expect(last.runId).not.toBe(handle.firstExecutionRunId);
    const first = await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    expect(first.historyLength).toBeLessThan(100);
    expect((await campaignRow(campaign.id)).lifecycleReason).toBe('ended');
  });

  test('budgetExhausted completes the campaign only when the spend store says its budget is spent', async () => {
    const now = await env.currentTimeMs();
    const { campaign } = await liveCampaign(new Date(now - HOUR), null);
    const handle = await start(campaign.id);

    // Not exhausted (a budget raised since the charge, say): the re-check keeps it running.
    await h.db.campaignSpend.create({ data: { campaignId: campaign.id, spentMicros: campaign.lifetimeSpendLimitMicros - 1n } });
    expect(await signalBudgetExhausted(env.client, campaign.id)).toBe(true);
    await until(async () => (await handle.query(lifecycleQuery)).budgetChecks === 1, 'the first budget check');
    expect((await campaignRow(campaign.id)).lifecycleState).toBeNull();
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // Exhausted for real: completed.
    await h.db.campaignSpend.update({ where: { campaignId: campaign.id }, data: { spentMicros: campaign.lifetimeSpendLimitMicros } });
    expect(await signalBudgetExhausted(env.client, campaign.id)).toBe(true);
    expect(await handle.result()).toStrictEqual({ state: 'completed', reason: 'budget_exhausted' });
    const row = await campaignRow(campaign.id);
    expect(row.lifecycleState).toBe('completed');
    expect(row.lifecycleReason).toBe('budget_exhausted');
  });
});

describe('on the dev server: approval starts it, /v1 and adctl reach it', () => {
  const temporal = createTemporalClient();
  let auction: AuctionHarness;
  beforeAll(async () => {
    auction = await startAuction();
  });
  afterAll(async () => {
    await auction?.close();
    await temporal.connection.close();
  });
  /** Whether the running auction service's in-memory index holds the ad. */
  const inLiveIndex = (adId: string) => auction.auction.deps.catalog.ads.some((ad) => ad.adId === adId);

  /** A campaign created through /v1: in review, its review workflow waiting. */
  async function createdCampaign() {
    const org = await newOrg(h.db);
    const created = await call(h.url, 'POST', '/v1/campaigns', {
      token: org.api_key,
      body: {
        name: `lifecycle ${randomUUID()}`,
        start_time: Math.floor(Date.now() / 1000) - 60,
        budget: { lifetime_spend_limit_micros: 5_000_000 },
        ad_groups: [{ name: 'g', context_hints: ['running'], ads: [{ creative: { type: 'chat_card', title: 'Fresh shoes', body: 'Light', cta: 'Shop' } }] }],
      },
    });
    expect(created.status).toBe(201);
    return { org, campaignId: created.body.id as string };
  }

  /** A campaign created through /v1, approved with adctl (which starts its lifecycle) and activated. */
  async function approvedCampaign() {
    const { org, campaignId } = await createdCampaign();
    const approved = await adctl('review', 'approve', campaignId);
    expect(approved.code).toBe(0);
    const handle = temporal.workflow.getHandle<typeof campaignLifecycle>(campaignLifecycleWorkflowId(campaignId));
    await until(async () => (await handle.describe().catch(() => null))?.status.name === 'RUNNING', 'the lifecycle workflow');
    const activated = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/activate`, { token: org.api_key });
    expect(activated.status).toBe(200);
    expect(activated.body.status).toBe('active');
    const adGroup = await h.db.adGroup.findFirstOrThrow({ where: { campaignId }, include: { ads: true } });
    return { org, campaignId, handle, adGroupId: adGroup.id, adId: adGroup.ads[0].id };
  }

  test('adctl review block stops a live campaign at once; it reads paused and every status action is refused', async () => {
    const { org, campaignId, handle, adGroupId, adId } = await approvedCampaign();
    expect((await loadIndexedAds(h.db)).some((ad) => ad.adId === adId)).toBe(true);
    await until(async () => inLiveIndex(adId), 'the live ad in the auction index');

    const blocked = await adctl('review', 'block', campaignId, '--reason', 'misleading claims');
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toStrictEqual({ campaign_id: campaignId, status: 'paused', lifecycle_state: 'blocked', reason: 'misleading claims' });
    // Written before adctl answered: the index built now no longer has its ad.
    expect((await loadIndexedAds(h.db)).some((ad) => ad.adId === adId)).toBe(false);
    // The running auction drops it on the update's notification.
    await until(async () => !inLiveIndex(adId), 'the blocked ad gone from the auction index');
    expect(await handle.result()).toStrictEqual({ state: 'blocked', reason: 'misleading claims' });

    const token = org.api_key;
    const read = await call(h.url, 'GET', `/v1/campaigns/${campaignId}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('paused');
    expect(read.body.review_status).toBe('approved');

    const activate = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/activate`, { token });
    expect(activate.status).toBe(400);
    expect(activate.body.error.code).toBe('campaign_terminal');
    const pause = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/pause`, { token });
    expect(pause.status).toBe(400);
    expect(pause.body.error.code).toBe('campaign_not_running');

    for (const action of ['activate', 'pause', 'archive']) {
      const res = await call(h.url, 'POST', `/v1/ad_groups/${adGroupId}/${action}`, { token });
      expect([action, res.status, res.body.error?.code]).toStrictEqual([action, 400, 'campaign_terminal']);
    }
    const statusUpdate = await call(h.url, 'POST', `/v1/ad_groups/${adGroupId}`, { token, body: { status: 'active' } });
    expect(statusUpdate.status).toBe(400);
    expect(statusUpdate.body.error.code).toBe('campaign_terminal');

    // Name and description updates are still accepted; they never restart serving.
    const renamed = await call(h.url, 'POST', `/v1/campaigns/${campaignId}`, { token, body: { name: `renamed ${randomUUID()}`, end_time: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.status).toBe('paused');
    expect((await loadIndexedAds(h.db)).some((ad) => ad.adId === adId)).toBe(false);

    // Archiving stays allowed, and is permanent as ever.
    const archived = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/archive`, { token });
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
  });

  test('a campaign blocked while still in review is blocked directly, and its later approval does not revive it', async () => {
    const { org, campaignId } = await createdCampaign();
    const blocked = await adctl('review', 'block', campaignId, '--reason', 'counterfeit goods');
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toStrictEqual({ campaign_id: campaignId, status: 'paused', lifecycle_state: 'blocked', reason: 'counterfeit goods' });
    expect((await campaignRow(campaignId)).reviewStatus).toBe('in_review');

    // The reviewer's approval is still recorded; the lifecycle it starts finds the block and ends.
    const approved = await adctl('review', 'approve', campaignId);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toStrictEqual({ campaign_id: campaignId, review_status: 'approved' });
    const handle = temporal.workflow.getHandle<typeof campaignLifecycle>(campaignLifecycleWorkflowId(campaignId));
    await until(async () => (await handle.describe().catch(() => null)) !== null, 'the lifecycle workflow');
    expect(await handle.result()).toStrictEqual({ state: 'blocked', reason: 'counterfeit goods' });

    const activate = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/activate`, { token: org.api_key });
    expect(activate.status).toBe(400);
    expect(activate.body.error.code).toBe('campaign_terminal');
  });

  test('adctl review block: unknown campaign and missing reason are errors', async () => {
    const unknown = await adctl('review', 'block', randomUUID(), '--reason', 'x');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no such campaign/);
    const noReason = await adctl('review', 'block', randomUUID());
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toMatch(/--reason is required/);
  });

  test('end_time and budget updates reach the workflow; archiving ends it', async () => {
    const { org, campaignId, handle } = await approvedCampaign();
    const endTime = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const updated = await call(h.url, 'POST', `/v1/campaigns/${campaignId}`, { token: org.api_key, body: { end_time: endTime } });
    expect(updated.status).toBe(200);
    // The signal was sent before the answer; the workflow applies it (and re-checks the budget).
    await until(async () => (await handle.query(lifecycleQuery)).endTime === new Date(endTime * 1000).toISOString(), 'the new end_time in the workflow');
    await until(async () => (await handle.query(lifecycleQuery)).budgetChecks >= 1, 'the budget re-check');

    const budget = await call(h.url, 'POST', `/v1/campaigns/${campaignId}`, {
      token: org.api_key,
      body: { budget: { lifetime_spend_limit_micros: 9_000_000 } },
    });
    expect(budget.status).toBe(200);
    await until(async () => (await handle.query(lifecycleQuery)).budgetChecks >= 2, 'the budget re-check after a budget update');
    expect((await campaignRow(campaignId)).lifecycleState).toBeNull();

    // Starting it again (a backfill, say) leaves the running one alone.
    expect(await startCampaignLifecycle(temporal, campaignId)).toStrictEqual({ started: false });

    const archived = await call(h.url, 'POST', `/v1/campaigns/${campaignId}/archive`, { token: org.api_key });
    expect(archived.status).toBe(200);
    expect(await handle.result()).toStrictEqual({ state: 'archived', reason: null });
  });
});
