import { Router } from 'express';
import { z } from 'zod';
import { config } from '../../lib/config';
import type { Db } from '../../lib/db';
import { errorHandler } from '../../lib/http/errors';
import { defineOperation, mountOperations, type Operation } from '../../lib/http/operations';
import {
  createReportExport,
  downloadReportExport,
  EXPORT_FORMATS,
  findReportExport,
  listReportExports,
  presentReportExport,
  reportExportCreateSchema,
} from '../../domain/insights/exports';
import { LEVELS } from '../../domain/insights/query';
import { ROW_CAP } from '../../domain/insights/report';
import { organizationOf } from '../auth/api-key-auth';
import { INSIGHTS_REQUEST_ERRORS } from './routes';
import { listPageSchema } from '../http/pagination';
import { listOperation, retrieveOperation } from '../http/resource-operations';

const tag = 'Insights';
const DOWNLOAD_PATH = '/report-exports/download';
const downloadBase = () => `${config.api.publicUrl}${DOWNLOAD_PATH}`;

export const reportExportSchema = z.object({
  id: z.string(),
  object: z.literal('report_export'),
  level: z.enum(LEVELS),
  entity_id: z.string().nullable(),
  format: z.enum(EXPORT_FORMATS),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  progress: z
    .object({ rows_written: z.int(), rows_total: z.int().nullable() })
    .describe('rows_total is null while the report is being counted, then set while the file is written'),
  error: z
    .object({
      message: z.string(),
      type: z.enum(['invalid_request_error', 'authentication_error', 'rate_limit_error', 'server_error']),
      param: z.string().nullable(),
      code: z.string(),
    })
    .nullable()
    .describe(
      `Why it failed, as the spec's error object: the insights endpoint's error (the entity deleted since, analytics_timeout), or report_too_large: the report holds more than ${ROW_CAP} rows (the insights row cap; an export holds every row or none), narrow it or export it in parts`,
    ),
  download_url: z.string().nullable().describe('Once succeeded: a link that needs no key and works for an hour (each read gives a fresh one)'),
  download_expires_at: z.int().nullable(),
  created_at: z.int(),
  completed_at: z.int().nullable(),
});

/** Report exports over /v1 (documented extension; docs/api-behaviour.md, Report exports), and the download link behind them. */
export function reportExportOperations(db: Db): Operation[] {
  const present = (row: Parameters<typeof presentReportExport>[0]) => presentReportExport(row, downloadBase());
  return [
    defineOperation({
      id: 'createReportExport',
      method: 'post',
      path: '/v1/report_exports',
      tag,
      auth: 'apiKey',
      summary: 'Export an insights report whole (every row of its decoded set, in its order) as CSV or JSON lines: run as a job, polled for its progress',
      body: reportExportCreateSchema,
      success: {
        status: 202,
        description: 'The export, queued',
        schema: reportExportSchema,
        links: { GetReportExport: { operationId: 'getReportExport', parameters: { report_export_id: '$response.body#/id' } } },
      },
      // The body's own (id required below the ad account, bounded strings), then the insights endpoints' checks.
      errors: ['required', 'string_too_long', ...INSIGHTS_REQUEST_ERRORS],
      handle: async ({ body }, _req, res) => present(await createReportExport(db, organizationOf(res), body)),
    }),
    listOperation({
      id: 'listReportExports',
      path: '/v1/report_exports',
      tag,
      summary: "The organization's report exports, newest first by default",
      filters: z.object({}),
      description: 'A page of exports',
      schema: listPageSchema(reportExportSchema),
      errors: ['invalid_value', 'not_found'],
      load: (organizationId, _filters, page) => listReportExports(db, organizationId, page),
      present: (row) => present({ ...row, content: null }),
    }),
    retrieveOperation({
      id: 'getReportExport',
      path: '/v1/report_exports/:report_export_id',
      tag,
      summary: 'A report export: its status, progress, and once done its download link',
      description: 'The export',
      schema: reportExportSchema,
      find: (organizationId, id) => findReportExport(db, organizationId, id),
      present,
    }),
  ];
}

/** The download link's operation: the signed token is the auth (no key), 404 once it expired. */
export function reportDownloadOperation(db: Db): Operation {
  return defineOperation({
    id: 'downloadReportExport',
    method: 'get',
    path: DOWNLOAD_PATH,
    tag,
    auth: 'none',
    summary: "A report export's file (the download_url of GET /v1/report_exports/{id})",
    query: z.object({ token: z.string().min(1).max(4096).describe('The signed token of the download_url') }),
    success: { status: 200, description: 'The file: text/csv or application/x-ndjson' },
    errors: ['invalid_value', 'required', 'not_found'],
    handle: async ({ query }, _req, res) => {
      const file = await downloadReportExport(db, query.token);
      res
        .status(200)
        .type(file.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .set('Content-Disposition', `attachment; filename="report-${file.id}.${file.format}"`)
        .set('Cache-Control', 'private, no-store')
        .send(file.content);
      return undefined;
    },
  });
}

export function reportDownloadRoutes(operation: Operation): Router {
  const router = Router();
  router.use(mountOperations([operation]));
  router.use(operation.path, errorHandler);
  return router;
}
