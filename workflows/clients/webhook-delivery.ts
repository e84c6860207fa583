import type { Client } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import { deliverSignal, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from '../webhook-delivery';

/**
 * Hands deliveries to their workflows (one per endpoint and ordering key):
 * started with the first, signalled with the rest, in the order given. A
 * workflow that ended while idle is started again by the next signal.
 */
export async function startWebhookDeliveries(client: Client, deliveries: { id: string; endpointId: string; orderingKey: string }[]): Promise<void> {
  const groups = new Map<string, { endpointId: string; orderingKey: string; ids: string[] }>();
  for (const d of deliveries) {
    const workflowId = webhookDeliveryWorkflowId(d.endpointId, d.orderingKey);
    const group = groups.get(workflowId) ?? { endpointId: d.endpointId, orderingKey: d.orderingKey, ids: [] };
    group.ids.push(d.id);
    groups.set(workflowId, group);
  }
  await Promise.all(
    [...groups].map(([workflowId, group]) => {
      const input: WebhookDeliveryInput = { endpointId: group.endpointId, orderingKey: group.orderingKey };
      return client.workflow.signalWithStart('webhookDelivery', {
        workflowId,
        taskQueue: temporalConfig.taskQueues.main,
        args: [input],
        signal: deliverSignal,
        signalArgs: [group.ids],
      });
    }),
  );
}
