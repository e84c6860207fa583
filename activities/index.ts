import type Stripe from 'stripe';
import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import type { CreativeGenerator } from '../domain/creatives/generator';
import { apiKeyActivities } from './api-keys';
import { billingActivities } from './billing';
import { campaignTreeActivities } from './campaign-tree';
import { settlementActivities } from './creation-settlement';
import { externalSupplyActivities } from './external-supply';
import { reviewActivities, type CampaignReviewWorkflows } from './review';
import { campaignLifecycleActivities } from './campaign-lifecycle';
import { jobActivities } from './jobs';
import { webhookActivities } from './webhooks';
import type { WebhookObserver } from '../domain/webhooks/metrics';
import type { JobDeps } from '../jobs/job';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { createClickhouse } from '../lib/clickhouse/client';
import { config } from '../lib/config';
import { createPgPool } from '../lib/db';
import { createJobMetrics, type JobMetrics } from '../jobs/metrics';
import { Registry } from 'prom-client';

/** Dependencies of the activities, injected so tests can give them real local services. */
export interface ActivityDeps {
  db: Db;
  stripe: Stripe;
  assets: AssetStore;
  creatives: CreativeGenerator;
  /** Default: the configured ClickHouse. */
  clickhouse?: ClickHouseClient;
  /** Starts and ends campaigns' review workflows (the creation saga's last step and its compensation); workers that run no saga may leave it out. */
  reviewWorkflows?: CampaignReviewWorkflows;
  /** The background jobs' plain pg pool (default: a small one of its own). */
  pool?: Pool;
  /** Where the background jobs' runs are counted (default: a registry nobody serves). */
  jobMetrics?: JobMetrics;
  /** Hands webhook deliveries to their workflows (the worker's Temporal client); without it the webhook dispatch job does nothing. */
  webhookDeliveries?: JobDeps['webhookDeliveries'];
  /** Where webhook delivery attempts are counted. */
  webhookObserver?: WebhookObserver;
}

/** What the campaign-creation saga calls (workflows/campaign-creation.ts): all an api process's creation worker registers. */
export function creationActivities(deps: Pick<ActivityDeps, 'db' | 'stripe' | 'assets' | 'creatives' | 'reviewWorkflows'>) {
  const reviews = reviewActivities(deps.db, deps.assets, deps.reviewWorkflows);
  const billing = billingActivities(deps.db, deps.stripe);
  return { ...reviews, ...billing, ...settlementActivities(billing, reviews), ...campaignTreeActivities(deps) };
}

export function createActivities(deps: ActivityDeps) {
  const clickhouse = deps.clickhouse ?? createClickhouse();
  return {
    ...apiKeyActivities(deps.db),
    ...creationActivities(deps),
    ...campaignLifecycleActivities(deps.db),
    ...jobActivities(
      {
        db: deps.db,
        pool: deps.pool ?? createPgPool(undefined, 3),
        clickhouse,
        database: config.clickhouse.database,
        webhookDeliveries: deps.webhookDeliveries,
      },
      deps.jobMetrics ?? createJobMetrics(new Registry()),
    ),
    ...externalSupplyActivities(deps.db, clickhouse),
    ...webhookActivities(deps.db, deps.webhookObserver),
  };
}

export type Activities = ReturnType<typeof createActivities>;
