import { deliveryExportJob } from './delivery-export';
import { dspCallbacksJob } from './dsp-callbacks';
import { eventPipelineJob } from './event-pipeline';
import type { Job } from './job';
import { pacingJob } from './pacing';
import { retentionJob } from './retention';
import { userErasuresJob } from './user-erasures';
import { webhookDispatchJob } from './webhook-dispatch';
import { reportExportsJob } from './report-exports';
import { deliveryIssuesJob } from './delivery-issues';

/** Every background job the worker hosts (jobs/job.ts says how). */
export const JOBS: readonly Job[] = [
  eventPipelineJob,
  deliveryExportJob,
  dspCallbacksJob,
  pacingJob,
  retentionJob,
  userErasuresJob,
  webhookDispatchJob,
  reportExportsJob,
  deliveryIssuesJob,
];

export function jobNamed(name: string): Job {
  const job = JOBS.find((j) => j.name === name);
  if (!job) throw new Error(`no such background job: ${name}`);
  return job;
}
