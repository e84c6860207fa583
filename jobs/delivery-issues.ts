import { checkDeliveryIssues } from '../domain/serving/issue-events';
import { defineJob } from './job';

const PER_RUN = 50;

/**
 * Delivery issues appearing and clearing, as webhook events (domain/serving/issue-events.ts):
 * the live campaigns of organizations with a webhook endpoint, each looked at about once a
 * minute (the longest unchecked first), through the same diagnostics as GET /v1/campaigns/{id}/delivery.
 */
export const deliveryIssuesJob = defineJob({
  name: 'delivery-issues',
  restMs: 60_000,
  async run({ db, clickhouse, database }) {
    const checked = await checkDeliveryIssues({ db, ch: clickhouse, database }, PER_RUN);
    return { items: checked, more: checked === PER_RUN };
  },
});
