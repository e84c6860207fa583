import { ApplicationFailure } from '@temporalio/activity';
import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse } from '../lib/clickhouse/client';
import { config } from '../lib/config';
import type { Db } from '../lib/db';
import { ExternalReportError, importExternalReport, parseExternalReport, type ImportResult } from '../domain/delivery/external-supply';

/** A partner report larger than this is refused (a daily report is far smaller). */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;

async function download(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000), redirect: 'follow' });
  if (!res.ok) throw new Error(`partner report ${url} answered ${res.status}`);
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > MAX_REPORT_BYTES) throw ApplicationFailure.nonRetryable(`partner report is ${length} bytes, over ${MAX_REPORT_BYTES}`, 'ExternalReportError');
  return res.text();
}

/** Activities of the external-supply import workflow. */
export function externalSupplyActivities(db: Db, ch: ClickHouseClient = createClickhouse()) {
  return {
    /**
     * Downloads a partner's daily report and imports it (every day of it replaced).
     * A report we refuse (bad shape, unknown ads) will not get better by retrying.
     */
    async importExternalSupplyFromUrl(input: { partner: string; url: string }): Promise<ImportResult> {
      const text = await download(input.url);
      try {
        return await importExternalReport({ db, ch, database: config.clickhouse.database }, input.partner, parseExternalReport(text));
      } catch (err) {
        if (err instanceof ExternalReportError) throw ApplicationFailure.nonRetryable(err.message, 'ExternalReportError');
        throw err;
      }
    },
  };
}
