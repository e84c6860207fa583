import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { importExternalSupplyFromUrl } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5, initialInterval: '30 seconds', nonRetryableErrorTypes: ['ExternalReportError'] },
});

export interface ExternalSupplyImportInput {
  partner: string;
  /** The partner's report URL; `{date}` in it becomes the report day (YYYY-MM-DD). */
  url: string;
  /** The UTC day to import; default yesterday (the last complete day) when the run starts. */
  day?: string;
}

/**
 * Imports one partner's daily external-supply report; started by the
 * partner's Temporal schedule (workflows/clients/external-supply.ts) or by hand.
 */
export async function externalSupplyImport(input: ExternalSupplyImportInput): Promise<{ days: number; rows: number }> {
  const day = input.day ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  return importExternalSupplyFromUrl({ partner: input.partner, url: input.url.split('{date}').join(day) });
}
