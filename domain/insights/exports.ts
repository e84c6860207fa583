/**
 * Report exports (issue 50): an insights report too large for a page, run as a
 * job (jobs/report-exports.ts) with the insights endpoints' own parameters and
 * rules, its whole decoded set written as CSV or JSON lines, in the report's
 * order and with its figures (report.ts allInsightRows: the pages' rows), and
 * downloaded through a signed link that expires.
 */
import { z } from 'zod';
import type { Db, Prisma } from '../../lib/db';
import { ERROR_CODES, errorTypeOf, isKnownCode } from '../../lib/http/error-codes';
import { signToken, verifyToken } from '../../lib/signed-token';
import { DomainError, notFound } from '../errors';
import { normalizeId } from '../ids';
import { paginate, type PageRequest } from '../pagination';
import { LEVELS, type Level, type RawQuery } from './query';
import { allInsightRows, parseInsightsRequest, resolveScope, type InsightRow, type InsightsDeps } from './report';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** How long a download link works. */
export const DOWNLOAD_TTL_SECONDS = 3600;

const queryValue = z.union([z.string().max(4096), z.array(z.string().max(4096)).max(100)]);
export const reportExportCreateSchema = z.strictObject({
  level: z.enum(LEVELS).describe('The insights endpoint to export: ad_account, campaign, ad_group or ad'),
  id: z.guid().optional().describe("The campaign's, ad group's or ad's id (the endpoint's path parameter); not for ad_account"),
  format: z.enum(EXPORT_FORMATS).default('csv').describe('csv (a header line, then one line per row) or jsonl (one JSON object per line)'),
  query: z
    .record(z.string().max(64), queryValue)
    .default({})
    .describe(
      "The insights endpoint's query parameters, named and valued as in its query string (time_granularity, aggregation_level, time_ranges[], fields[], filters[], sort[], segments[], source); limit, before and after are not used: the export holds every row",
    ),
});
export type ReportExportCreate = z.output<typeof reportExportCreateSchema>;

export type ReportExportRow = Prisma.ReportExportModel;

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

type StoredError = { code: string; message: string; param: string | null };
/** A failed export's error in the spec's error object shape, its `type` from the code's status in the one table (lib/http/error-codes.ts). */
const specError = (e: StoredError) => ({
  message: e.message,
  type: errorTypeOf(isKnownCode(e.code) ? ERROR_CODES[e.code].status : 500),
  param: e.param,
  code: e.code,
});

/** The export as the API shows it: with a fresh download link once it succeeded. */
export function presentReportExport(row: ReportExportRow, downloadBase: string, now = Date.now()) {
  const done = row.status === 'succeeded';
  const token = done ? signToken({ export_id: row.id }, DOWNLOAD_TTL_SECONDS, undefined, now) : null;
  return {
    id: row.id,
    object: 'report_export' as const,
    level: row.level as Level,
    entity_id: row.entityId,
    format: row.format as ExportFormat,
    status: row.status as 'queued' | 'running' | 'succeeded' | 'failed',
    progress: { rows_written: row.rowsWritten, rows_total: row.rowsTotal },
    error: row.error ? specError(row.error as StoredError) : null,
    download_url: token ? `${downloadBase}?token=${encodeURIComponent(token)}` : null,
    download_expires_at: token ? Math.floor(now / 1000) + DOWNLOAD_TTL_SECONDS : null,
    created_at: seconds(row.createdAt)!,
    completed_at: seconds(row.completedAt),
  };
}

/** The target and query of an export, checked as the insights endpoint checks them (the same 400s and 404s). */
async function checked(db: Db, organizationId: string, input: { level: Level; id?: string | null; query: RawQuery }) {
  const request = parseInsightsRequest(input.level, input.id, input.query);
  await resolveScope(db, organizationId, request.target);
  return request;
}

/** Queues an export (the job runs it); its parameters are checked now, so a bad one is a 400 at once. */
export async function createReportExport(db: Db, organizationId: string, input: ReportExportCreate): Promise<ReportExportRow> {
  const { limit: _l, before: _b, after: _a, ...query } = input.query;
  await checked(db, organizationId, { level: input.level, id: input.id, query });
  return db.reportExport.create({
    data: { organizationId, level: input.level, entityId: input.id?.toLowerCase() ?? null, format: input.format, query },
  });
}

export async function findReportExport(db: Db, organizationId: string, id: unknown): Promise<ReportExportRow> {
  const exportId = normalizeId(id);
  const row = exportId ? await db.reportExport.findFirst({ where: { id: exportId, organizationId } }) : null;
  if (!row) throw notFound('report export', 'report_export_id');
  return row;
}

export async function listReportExports(db: Db, organizationId: string, page: PageRequest) {
  return paginate(
    page,
    (id) => db.reportExport.findFirst({ where: { organizationId, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.reportExport.findMany({ where: { AND: [{ organizationId }, where] }, orderBy, take, omit: { content: true } }),
  );
}

// ---------------------------------------------------------------------------
// The file
// ---------------------------------------------------------------------------

/** A spreadsheet would run a cell that starts like a formula: such text gets a leading quote (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as a file: CSV (the first row's columns as its header) or JSON lines. */
export function formatRows(rows: InsightRow[], format: ExportFormat): string {
  const columns = rows.length > 0 ? Object.keys(rows[0]) : [];
  const lines =
    format === 'csv'
      ? [columns.map(csvCell).join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))]
      : rows.map((row) => JSON.stringify(row));
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/**
 * Runs the oldest queued export, if any: claimed under a row lock (one runner
 * per export whatever the number of workers), the report run, the file
 * written, progress recorded along the way. A report the endpoint would refuse
 * now (the entity deleted since, a query past its time budget) fails the
 * export with the endpoint's error. True when it ran one.
 */
export async function runNextReportExport(deps: InsightsDeps): Promise<boolean> {
  const { db } = deps;
  const claimed = await db.$transaction(async (tx) => {
    const [next] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM report_exports WHERE status = 'queued' ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`;
    if (!next) return null;
    return tx.reportExport.update({ where: { id: next.id }, data: { status: 'running', startedAt: new Date() } });
  });
  if (!claimed) return false;
  try {
    const { target, query } = await checked(db, claimed.organizationId, {
      level: claimed.level as Level,
      id: claimed.entityId,
      query: claimed.query as RawQuery,
    });
    const rows = await allInsightRows(deps, claimed.organizationId, target, query);
    // Running with rows_total null: the report is being counted; with it: the file is being written.
    await db.reportExport.update({ where: { id: claimed.id }, data: { rowsTotal: rows.length } });
    const content = formatRows(rows, claimed.format as ExportFormat);
    await db.reportExport.update({
      where: { id: claimed.id },
      data: { status: 'succeeded', rowsWritten: rows.length, content, completedAt: new Date() },
    });
  } catch (err) {
    const error =
      err instanceof DomainError
        ? { code: err.code, message: err.message, param: err.param }
        : { code: 'internal_error', message: 'The export failed; it has been logged', param: null };
    if (!(err instanceof DomainError)) console.error(`report export ${claimed.id} failed: ${(err as Error).message}`);
    await db.reportExport.update({ where: { id: claimed.id }, data: { status: 'failed', error, completedAt: new Date() } });
  }
  return true;
}

/** The file behind a download link: its export's content and format, or 404 for a link that is not genuine, has expired, or names nothing ready. */
export async function downloadReportExport(db: Db, token: unknown): Promise<{ id: string; format: ExportFormat; content: string }> {
  const payload = verifyToken<{ export_id: string }>(token);
  const id = payload ? normalizeId(payload.export_id) : null;
  const row = id ? await db.reportExport.findUnique({ where: { id } }) : null;
  if (!row || row.status !== 'succeeded' || row.content === null) throw new DomainError('not_found', 'Unknown or expired download link', 'token');
  return { id: row.id, format: row.format as ExportFormat, content: row.content };
}

/** How long an export (and its file) is kept. */
export const EXPORT_KEEP_DAYS = 7;

/** Deletes exports finished more than `days` ago (the retention job); their links answer 404 from then on. */
export async function pruneReportExports(db: Db, days = EXPORT_KEEP_DAYS, now = Date.now()): Promise<number> {
  const { count } = await db.reportExport.deleteMany({ where: { completedAt: { lt: new Date(now - days * 86_400_000) } } });
  return count;
}
