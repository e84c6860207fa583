/**
 * adctl's report exports (domain/insights/exports.ts): queue one for an
 * organization with the insights endpoints' parameters, then read its status,
 * progress and download link, or write its file. The worker's job runs it.
 */
import { writeFile } from 'node:fs/promises';
import type { Db } from '../lib/db';
import { isUuid } from '../domain/ids';
import { createReportExport, presentReportExport, reportExportCreateSchema } from '../domain/insights/exports';
import { findOrganization } from '../domain/organizations/service';
import { config } from '../lib/config';
import { parseOrThrow } from '../lib/validation';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

const downloadBase = () => `${config.api.publicUrl}/report-exports/download`;

export async function runExportCommand(db: Db, command: string, args: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const { values, positionals } = options(args, {
    org: { type: 'string' },
    level: { type: 'string' },
    id: { type: 'string' },
    format: { type: 'string' },
    query: { type: 'string' },
    output: { type: 'string' },
  });
  if (command === 'export create') {
    const publicId = typeof values.org === 'string' ? values.org : undefined;
    if (!publicId) throw usage('--org is required');
    const org = isUuid(publicId) ? await findOrganization(db, publicId.toLowerCase()) : null;
    if (!org) throw new Error(`no such organization: ${publicId}`);
    let query: unknown = {};
    if (typeof values.query === 'string') {
      try {
        query = JSON.parse(values.query);
      } catch {
        throw usage('--query must be a JSON object of the insights query parameters');
      }
    }
    const input = parseOrThrow(reportExportCreateSchema, { level: values.level, id: values.id, format: values.format, query });
    return presentReportExport(await createReportExport(db, org.id, input), downloadBase());
  }
  const id = positionals[0];
  if (!id || !isUuid(id) || positionals.length > 1) throw usage('exactly one export id (a UUID) is required');
  const row = await db.reportExport.findUnique({ where: { id: id.toLowerCase() } });
  if (!row) throw new Error(`no such report export: ${id}`);
  if (typeof values.output === 'string') {
    if (row.content === null) throw new Error(`report export ${row.id} is ${row.status}: no file yet`);
    await writeFile(values.output, row.content);
  }
  return presentReportExport(row, downloadBase());
}
