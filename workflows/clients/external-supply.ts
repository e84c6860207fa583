import { ScheduleAlreadyRunning, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import type { ExternalSupplyImportInput } from '../external-supply-import';

export const externalImportScheduleId = (partner: string) => `external-supply-import-${partner}`;

/**
 * The Temporal schedule importing a partner's daily report (default every day
 * at 06:00 UTC). Scheduling a partner again replaces its URL and timing.
 */
export async function scheduleExternalImport(client: Client, input: { partner: string; url: string; cron?: string }) {
  const scheduleId = externalImportScheduleId(input.partner);
  const args: [ExternalSupplyImportInput] = [{ partner: input.partner, url: input.url }];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'externalSupplyImport',
    args,
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: scheduleId,
  };
  const spec = { cronExpressions: [input.cron ?? '0 6 * * *'] };
  try {
    await client.schedule.create({ scheduleId, spec, action });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
  return { schedule_id: scheduleId };
}
