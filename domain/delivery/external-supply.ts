/**
 * External supply: a partner's daily report (CSV or JSON) checked against our
 * entities and written into `external_supply_daily` (clickhouse-tables.ts).
 *
 * Report rows: `date` (YYYY-MM-DD, the UTC day), `ad_id` (our ad's id),
 * `impressions`, `clicks`, `spend_micros` (non-negative integers). CSV has a
 * header line naming those columns; JSON is an array of such objects or
 * `{ "rows": [...] }`. Several rows for one (date, ad) add up.
 *
 * All or nothing per file: every row is checked (shape, known ad) before
 * anything is written; then each day of the file replaces that day of the
 * partner's data (the month holding it is swapped in atomically), so
 * re-importing a day never counts it twice and days not in the file stay.
 */
import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { CsvError, parse as parseCsvRecords, type InfoRecord } from 'csv-parse/sync';
import { identifier, inList, sql } from '../../lib/clickhouse/sql';
import type { Db } from '../../lib/db';
import { isUuid } from '../ids';
import { DELIVERY_TABLES } from './clickhouse-tables';

/** A report that cannot be imported; nothing of it was written. */
export class ExternalReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalReportError';
  }
}

export interface ExternalReportRow {
  date: string;
  ad_id: string;
  impressions: number;
  clicks: number;
  spend_micros: bigint;
}

export interface ImportResult {
  days: number;
  rows: number;
}

const COLUMNS = ['date', 'ad_id', 'impressions', 'clicks', 'spend_micros'] as const;
const PARTNER_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** Listed in an error message at most (a bad file may have thousands). */
const MAX_LISTED = 10;

function isRealDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text && d.getUTCFullYear() >= 1970 && d.getUTCFullYear() < 2106;
}

function count(value: unknown, column: string, line: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new ExternalReportError(`${line}: ${column} must be a non-negative integer`);
  return n;
}

function micros(value: unknown, line: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,18}$/.test(text)) throw new ExternalReportError(`${line}: spend_micros must be a non-negative integer (micros)`);
  return BigInt(text);
}

function checkRow(raw: Record<string, unknown>, line: string): ExternalReportRow {
  const date = typeof raw.date === 'string' ? raw.date.trim() : '';
  if (!isRealDate(date)) throw new ExternalReportError(`${line}: date must be a real YYYY-MM-DD day`);
  const adId = typeof raw.ad_id === 'string' ? raw.ad_id.trim().toLowerCase() : '';
  if (!isUuid(adId)) throw new ExternalReportError(`${line}: ad_id must be an ad id`);
  return {
    date,
    ad_id: adId,
    impressions: count(raw.impressions, 'impressions', line),
    clicks: count(raw.clicks, 'clicks', line),
    spend_micros: micros(raw.spend_micros, line),
  };
}

/**
 * CSV as RFC 4180 has it (csv-parse): a quoted field may hold commas, doubled quotes and line
 * breaks; a byte order mark, blank lines and the spaces around fields are dropped. A row's line
 * is the file's line its record ends on.
 */
function parseCsv(text: string): ExternalReportRow[] {
  let records: { record: string[]; info: InfoRecord }[];
  try {
    // `info: true` makes each record { record, info }: the library's types do not follow the option.
    records = parseCsvRecords(text, {
      bom: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof records;
  } catch (err) {
    if (err instanceof CsvError) throw new ExternalReportError(`The CSV is malformed: ${err.message}`);
    throw err;
  }
  if (records.length === 0) throw new ExternalReportError('The report is empty');
  const header = records[0].record;
  const missing = COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new ExternalReportError(`The CSV header lacks ${missing.join(', ')} (columns: ${COLUMNS.join(',')})`);
  return records.slice(1).map(({ record: cells, info }) => {
    const line = `line ${info.lines}`;
    if (cells.length !== header.length) throw new ExternalReportError(`${line}: expected ${header.length} columns, got ${cells.length}`);
    return checkRow(Object.fromEntries(header.map((h, j) => [h, cells[j]])), line);
  });
}

function parseJsonReport(text: string): ExternalReportRow[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ExternalReportError('The report is not valid JSON');
  }
  const rows = Array.isArray(value) ? value : (value as { rows?: unknown })?.rows;
  if (!Array.isArray(rows)) throw new ExternalReportError('A JSON report is an array of rows or { "rows": [...] }');
  return rows.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new ExternalReportError(`row ${i}: must be an object`);
    return checkRow(r as Record<string, unknown>, `row ${i}`);
  });
}

/** A report's rows, CSV or JSON (told apart by the first character; a byte order mark is not one). */
export function parseExternalReport(text: string): ExternalReportRow[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const first = body.trimStart()[0];
  const rows = first === '[' || first === '{' ? parseJsonReport(body) : parseCsv(body);
  if (rows.length === 0) throw new ExternalReportError('The report has no rows');
  return rows;
}

export interface ExternalSupplyDeps {
  db: Db;
  ch: ClickHouseClient;
  database: string;
}

/** The entity path of every ad in the report; any unknown ad rejects the whole report. */
async function entityPaths(db: Db, adIds: string[]) {
  const ads = await db.ad.findMany({
    where: { id: { in: adIds } },
    select: { id: true, adGroupId: true, adGroup: { select: { campaignId: true, campaign: { select: { adAccountId: true, organizationId: true } } } } },
  });
  const found = new Map(
    ads.map((a) => [
      a.id,
      {
        organization_id: a.adGroup.campaign.organizationId,
        ad_account_id: a.adGroup.campaign.adAccountId,
        campaign_id: a.adGroup.campaignId,
        ad_group_id: a.adGroupId,
        ad_id: a.id,
      },
    ]),
  );
  const unknown = adIds.filter((id) => !found.has(id));
  if (unknown.length > 0) {
    const listed = unknown.slice(0, MAX_LISTED).join(', ');
    throw new ExternalReportError(`Unknown ad ids (${unknown.length}): ${listed}${unknown.length > MAX_LISTED ? ', ...' : ''}; nothing was imported`);
  }
  return found;
}

/**
 * Imports a partner's report: validates everything, then rewrites each month
 * the file touches (one partition per partner and month): the month's other
 * days as stored plus the file's days, swapped in atomically. Imports of one
 * partner must not run concurrently (its schedule never overlaps runs).
 */
export async function importExternalReport(deps: ExternalSupplyDeps, partner: string, rows: ExternalReportRow[]): Promise<ImportResult> {
  if (!PARTNER_RE.test(partner)) throw new ExternalReportError('partner must be 1-64 letters, digits, _ or -');
  const paths = await entityPaths(deps.db, [...new Set(rows.map((r) => r.ad_id))]);
  const days = [...new Set(rows.map((r) => r.date))].sort();
  const months = [...new Set(days.map((d) => Number(d.slice(0, 4) + d.slice(5, 7))))];
  const importedAt = Math.floor(Date.now() / 1000);
  const target = `${identifier(deps.database)}.${DELIVERY_TABLES.externalDaily}`;
  // A staging table of the same structure; its partitions replace the target's.
  const staging = `${identifier(deps.database)}.${DELIVERY_TABLES.externalDaily}_staging_${randomBytes(6).toString('hex')}`;
  await deps.ch.command({ query: `CREATE TABLE ${staging} AS ${target}` });
  try {
    await deps.ch.command({
      query: `INSERT INTO ${staging} SELECT * FROM ${target}
        WHERE ${sql`partner = ${partner}`} AND toYYYYMM(day) IN ${inList(months)} AND toString(day) NOT IN ${inList(days)}`,
    });
    await deps.ch.insert({
      table: staging,
      format: 'JSONEachRow',
      values: rows.map((r) => ({
        partner,
        day: r.date,
        ...paths.get(r.ad_id)!,
        impressions: r.impressions,
        clicks: r.clicks,
        spend_micros: r.spend_micros.toString(),
        imported_at: importedAt,
      })),
    });
    for (const month of months) {
      await deps.ch.command({ query: `ALTER TABLE ${target} REPLACE PARTITION ${sql`(${partner}, ${month})`} FROM ${staging}` });
    }
  } finally {
    await deps.ch.command({ query: `DROP TABLE IF EXISTS ${staging}` });
  }
  return { days: days.length, rows: rows.length };
}
