/**
 * External supply: `adctl external import --file F` (CSV), the Temporal
 * import workflow over a partner's HTTP endpoint (JSON, a loopback server)
 * started by hand and by its schedule, day replacement on re-import, and
 * all-or-nothing rejection of unknown ads. Plus `adctl demo seed`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { createTemporalClient } from '../../lib/temporal';
import { temporalConfig } from '../../temporal.config';
import { scheduleExternalImport } from '../../workflows/clients/external-supply';
import { adctl } from '../support/cli';
import { useHarness } from '../support/harness';
import { eventually } from '../support/wait';
import { newTenant, type Tenant } from './support';

const h = useHarness();
let t: Tenant;
let partnerServer: Server;
let partnerUrl: string;
const temporal = createTemporalClient();
const dir = mkdtempSync(path.join(tmpdir(), 'external-supply-'));
/** What the loopback partner serves, by path. */
const reports = new Map<string, string>();

beforeAll(async () => {
  t = await newTenant(h, { campaigns: 1, groups: 1, ads: 2 });
  partnerServer = createServer((req, res) => {
    const body = reports.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => partnerServer.listen(0, '127.0.0.1', resolve));
  partnerUrl = `http://127.0.0.1:${(partnerServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => partnerServer.close(r));
  await temporal.connection.close();
});

/** External totals of the tenant over some UTC days. */
async function externalTotals(since: string, until: string) {
  const res = await t.get('/v1/ad_account/insights', { source: 'external', time_granularity: 'none', 'time_ranges[]': [{ type: 'date_range', since, until }] });
  expect(res.status).toBe(200);
  return res.body.data[0] ?? { impressions: 0, clicks: 0, spend: 0 };
}

function csvFile(lines: string[]): string {
  const file = path.join(dir, `${randomUUID()}.csv`);
  writeFileSync(file, ['date,ad_id,impressions,clicks,spend_micros', ...lines].join('\n'));
  return file;
}

test('adctl external import: CSV rows counted as external supply; re-importing a day replaces it', async () => {
  const [a, b] = t.ads;
  const partner = `csv-${randomUUID().slice(0, 8)}`;
  const first = await adctl(
    'external',
    'import',
    '--file',
    csvFile([`2026-02-01,${a.adId},100,4,1500000`, `2026-02-01,${b.adId},50,1,500000`, `2026-02-02,${a.adId},10,0,100000`]),
    '--partner',
    partner,
  );
  expect(first.stderr).toBe('');
  expect(JSON.parse(first.stdout)).toEqual({ days: 2, rows: 3 });
  expect(await externalTotals('2026-02-01', '2026-02-02')).toMatchObject({ impressions: 160, clicks: 5, spend: 2.1 });

  // The same day again, corrected: it replaces the day (nothing counted twice); the other day stays.
  const again = await adctl('external', 'import', '--file', csvFile([`2026-02-01,${a.adId},70,2,700000`]), '--partner', partner);
  expect(JSON.parse(again.stdout)).toEqual({ days: 1, rows: 1 });
  expect(await externalTotals('2026-02-01', '2026-02-01')).toMatchObject({ impressions: 70, clicks: 2, spend: 0.7 });
  expect(await externalTotals('2026-02-02', '2026-02-02')).toMatchObject({ impressions: 10 });
  // Own supply is untouched by external rows, and external rows are daily only.
  const own = await t.get('/v1/ad_account/insights', { source: 'own', 'time_ranges[]': [{ type: 'date_range', since: '2026-02-01', until: '2026-02-02' }] });
  expect(own.body.count).toBe(0);
});

test('adctl external import: an unknown ad id rejects the whole file, nothing half-imported', async () => {
  const [a] = t.ads;
  const partner = `csv-${randomUUID().slice(0, 8)}`;
  const unknown = randomUUID();
  const res = await adctl(
    'external',
    'import',
    '--file',
    csvFile([`2026-02-10,${a.adId},100,1,100000`, `2026-02-11,${unknown},5,0,1000`]),
    '--partner',
    partner,
  );
  expect(res.code).not.toBe(0);
  expect(res.stdout).toBe('');
  expect(res.stderr).toContain(`Unknown ad ids (1): ${unknown}`);
  expect((await externalTotals('2026-02-10', '2026-02-11')).impressions).toBe(0);

  const malformed = await adctl('external', 'import', '--file', csvFile([`2026-02-31,${a.adId},1,0,1`]));
  expect(malformed.code).not.toBe(0);
  expect(malformed.stderr).toContain('line 2: date must be a real YYYY-MM-DD day');
});

test('the import workflow fetches a partner report (JSON) over HTTP, by hand and from its schedule', async () => {
  const [a, b] = t.ads;
  const partner = `http-${randomUUID().slice(0, 8)}`;
  reports.set(
    `/${partner}/2026-03-05.json`,
    JSON.stringify({
      rows: [
        { date: '2026-03-05', ad_id: a.adId, impressions: 300, clicks: 6, spend_micros: 3_000_000 },
        { date: '2026-03-05', ad_id: b.adId, impressions: 200, clicks: 4, spend_micros: '2000000' },
      ],
    }),
  );
  const result = await temporal.workflow.execute('externalSupplyImport', {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: `test-external-import-${partner}`,
    args: [{ partner, url: `${partnerUrl}/${partner}/{date}.json`, day: '2026-03-05' }],
  });
  expect(result).toEqual({ days: 1, rows: 2 });
  expect(await externalTotals('2026-03-05', '2026-03-05')).toMatchObject({ impressions: 500, clicks: 10, spend: 5 });

  // A report naming an unknown ad fails the run at once (no retries) and writes nothing.
  reports.set(`/${partner}/2026-03-06.json`, JSON.stringify([{ date: '2026-03-06', ad_id: randomUUID(), impressions: 1, clicks: 0, spend_micros: 1 }]));
  const failed = temporal.workflow.execute('externalSupplyImport', {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: `test-external-import-${partner}-bad`,
    args: [{ partner, url: `${partnerUrl}/${partner}/{date}.json`, day: '2026-03-06' }],
  });
  await expect(failed).rejects.toBeInstanceOf(WorkflowFailedError);
  const causes = await failed.catch((err: Error) => {
    const messages: string[] = [];
    for (let e: Error | undefined = err; e; e = e.cause as Error | undefined) messages.push(e.message);
    return messages.join(' <- ');
  });
  expect(causes).toContain('Unknown ad ids (1)');

  // The schedule: triggered now, its run imports the report at its URL.
  reports.set(`/${partner}/scheduled.json`, JSON.stringify([{ date: '2026-03-07', ad_id: a.adId, impressions: 42, clicks: 0, spend_micros: 0 }]));
  const { schedule_id } = await scheduleExternalImport(temporal, { partner, url: `${partnerUrl}/${partner}/scheduled.json` });
  const schedule = temporal.schedule.getHandle(schedule_id);
  try {
    await schedule.trigger();
    const runId = await eventually(async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId, Boolean, { everyMs: 200 });
    expect(await temporal.workflow.getHandle(runId).result()).toEqual({ days: 1, rows: 1 });
  } finally {
    await schedule.delete();
  }
  expect((await externalTotals('2026-03-07', '2026-03-07')).impressions).toBe(42);
});

test('adctl demo seed: organizations, campaigns and rows, with plain progress lines off a terminal', async () => {
  const startedAt = new Date();
  const res = await adctl('demo', 'seed', '--days', '3', '--impressions', '3000');
  expect(res.code).toBe(0);
  // Four live campaigns per organization, and one waiting for review.
  // Each organization with a sign-in link for its owner (test/adctl.test.ts follows one).
  const organizations = Array.from({ length: 3 }, () => ({ org_public_id: expect.any(String), name: expect.any(String), login_url: expect.any(String) }));
  expect(JSON.parse(res.stdout)).toEqual({ organizations, campaigns: 15, rows: 3000 });
  const inReview = await h.db.campaign.findMany({ where: { createdAt: { gte: startedAt }, name: { startsWith: 'Demo campaign in review' } } });
  expect(inReview).toHaveLength(3);
  for (const campaign of inReview) {
    expect(campaign.reviewStatus).toBe('in_review');
    const review = await temporal.workflow.getHandle(`campaign-review-${campaign.id}`).describe();
    expect(review.status.name).toBe('RUNNING');
    const { publicId } = await h.db.organization.findUniqueOrThrow({ where: { id: campaign.organizationId } });
    expect(review.searchAttributes).toMatchObject({ CampaignId: [campaign.id], CampaignName: [campaign.name], OrganizationPublicId: [publicId] });
  }
  expect(res.stderr).toMatch(/^progress 0\/3000 rows\n(.|\n)*progress 3000\/3000 rows\n$/);
  const bad = await adctl('demo', 'seed', '--days', '0');
  expect(bad.code).toBe(2);
});
