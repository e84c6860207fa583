import { config } from '../lib/config';
import { runNextReportExport } from '../domain/insights/exports';
import { defineJob } from './job';

/**
 * Report exports waiting their turn (domain/insights/exports.ts), one at a time
 * per run, oldest first; each claimed under a row lock, so workers never run
 * one twice. A failed report fails its export (with the endpoint's error), not the job.
 */
export const reportExportsJob = defineJob({
  name: 'report-exports',
  restMs: 1_000,
  async run({ db, clickhouse, database }) {
    const ran = await runNextReportExport({ db, ch: clickhouse, database, timeoutSeconds: config.insights.queryTimeoutSeconds });
    return { items: ran ? 1 : 0, more: ran };
  },
});
