/**
 * The creation saga's last step fails after the review was started (its answer
 * lost, and every retry failing): the rollback removes the tree, refunds the
 * deposit and ends the review, so no review is left waiting for a campaign that
 * does not exist. A worker of the test's own injects the lost answers.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { campaignCreateSchema } from '../domain/campaigns/campaign-schema';
import { createCreativeGenerator } from '../domain/creatives/generator';
import { createAssetStore } from '../lib/asset-store';
import { closeDb, createDb, createPgPool } from '../lib/db';
import { createClickhouse } from '../lib/clickhouse/client';
import { createStripeClient } from '../lib/stripe';
import { createTemporalClient } from '../lib/temporal';
import { temporalConfig } from '../temporal.config';
import { campaignCreation, campaignCreationWorkflowId } from '../workflows/campaign-creation';
import { campaignReviewWorkflowId } from '../workflows/campaign-review';
import { closeCampaignReview, openCampaignReview } from '../workflows/clients/campaign-review';
import { organizationIdOf } from './support/fixtures';
import { newOrg } from './support/harness';
import { emulatorStripe, intentsWhere } from './support/stripe';

const taskQueue = `creation-review-rollback-${process.pid}-${Date.now()}`;
const temporal = createTemporalClient();
const db = createDb(undefined, 3);
// The activities' job dependencies, made here so that the test closes them.
const pool = createPgPool(undefined, 1);
const clickhouse = createClickhouse();
let connection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let opens = 0;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  connection = await NativeConnection.connect({ address: temporalConfig.address });
  worker = await Worker.create({
    connection,
    namespace: temporalConfig.namespace,
    taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({
      db,
      stripe: createStripeClient(),
      assets: createAssetStore(),
      creatives: createCreativeGenerator(),
      pool,
      clickhouse,
      reviewWorkflows: {
        // Each attempt starts the review (or finds it started), then its answer is lost.
        open: async (review) => {
          opens += 1;
          await openCampaignReview(temporal, review);
          throw new Error('the answer was lost');
        },
        close: (campaignId) => closeCampaignReview(temporal, campaignId),
      },
    }),
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker.shutdown();
  await running;
  await connection.close();
  await temporal.connection.close();
  await pool.end();
  await clickhouse.close();
  await closeDb(db);
});

test('a review started behind a failed last step is ended by the rollback, with the tree and the deposit', async () => {
  const org = await newOrg(db);
  const organizationId = await organizationIdOf(db, org);
  const adAccount = await db.adAccount.findFirstOrThrow({ where: { organizationId, isDefault: true } });
  const campaignId = randomUUID();
  const body = campaignCreateSchema.parse({
    name: `Review rollback ${campaignId}`,
    budget: { lifetime_spend_limit_micros: 25_000_000 },
    ad_groups: [{ ads: [{ creative: { type: 'chat_card', title: 'Run faster', body: 'Light shoes', cta: 'Shop' } }] }],
  });

  const failure = await temporal.workflow
    .execute(campaignCreation, {
      taskQueue,
      workflowId: campaignCreationWorkflowId(campaignId),
      args: [{ organizationId, adAccountId: adAccount.id, body, campaignId, organizationPublicId: org.org_public_id }],
    })
    .catch((err: unknown) => err);

  // The API answers this run with 500 internal_error: nothing was created.
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'internal_error' });
  expect(opens).toBe(3);
  const review = await temporal.workflow.getHandle(campaignReviewWorkflowId(campaignId)).describe();
  expect(review.status.name).toBe('TERMINATED');
  expect(await db.campaign.findUnique({ where: { id: campaignId } })).toBeNull();
  const intents = await intentsWhere((pi) => pi.metadata.campaign_id === campaignId);
  expect(intents.map((pi) => pi.status)).toEqual(['succeeded']);
  // Refunded by the rollback already: a second refund is refused.
  await expect(emulatorStripe().refunds.create({ payment_intent: intents[0].id })).rejects.toMatchObject({ code: 'charge_already_refunded' });
}, 120_000);

test('ending a review that was never started, or twice, is the same outcome', async () => {
  const campaignId = randomUUID();
  await expect(closeCampaignReview(temporal, campaignId)).resolves.toBeUndefined();
  await openCampaignReview(temporal, { campaignId, taskQueue, searchAttributes: {} });
  await closeCampaignReview(temporal, campaignId);
  await expect(closeCampaignReview(temporal, campaignId)).resolves.toBeUndefined();
  expect((await temporal.workflow.getHandle(campaignReviewWorkflowId(campaignId)).describe()).status.name).toBe('TERMINATED');
});
