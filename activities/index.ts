import type Stripe from 'stripe';
import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import type { CreativeGenerator } from '../domain/creatives/generator';
import { apiKeyActivities } from './api-keys';
import { billingActivities } from './billing';
import { campaignTreeActivities } from './campaign-tree';
import { externalSupplyActivities } from './external-supply';
import { reviewActivities } from './review';
import { campaignLifecycleActivities } from './campaign-lifecycle';
import { eventPipelineActivities } from './event-pipeline';
import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse } from '../lib/clickhouse/client';

/** Dependencies of the activities, injected so tests can give them real local services. */
export interface ActivityDeps {
  db: Db;
  stripe: Stripe;
  assets: AssetStore;
  creatives: CreativeGenerator;
  /** Default: the configured ClickHouse. */
  clickhouse?: ClickHouseClient;
}

export function createActivities(deps: ActivityDeps) {
  const clickhouse = deps.clickhouse ?? createClickhouse();
  return {
    ...apiKeyActivities(deps.db),
    ...reviewActivities(deps.db, deps.assets),
    ...campaignLifecycleActivities(deps.db),
    ...billingActivities(deps.db, deps.stripe),
    ...campaignTreeActivities(deps),
    ...eventPipelineActivities(deps.db, clickhouse),
    ...externalSupplyActivities(deps.db, clickhouse),
  };
}

export type Activities = ReturnType<typeof createActivities>;
