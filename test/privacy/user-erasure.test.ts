/**
 * A chat host erases one of its users (issue 48, section 4;
 * domain/privacy/erasure.ts): one call with its publisher key, recorded before
 * the 202; the worker's job deletes every row keyed to the user, sweeps again
 * once the links minted before the request have expired (a late pixel), and
 * reports it done. Afterwards no row of PostgreSQL or ClickHouse names the
 * user, another user's rows are untouched, and the money is exactly what it was.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { recordDeliveries } from '../../domain/delivery/charge';
import { audienceKey, insertFrequencyEvents } from '../../domain/serving/frequency-events';
import { sweepUserErasures } from '../../domain/privacy/erasure';
import { deliveryExportJob } from '../../jobs/delivery-export';
import { runUntilIdle } from '../../jobs/job';
import { userErasureSettleMs, userErasuresJob } from '../../jobs/user-erasures';
import { createClickhouse } from '../../lib/clickhouse/client';
import { identifier, literal } from '../../lib/clickhouse/sql';
import { config } from '../../lib/config';
import { createPgPool } from '../../lib/db';
import { newOrg } from '../support/harness';
import { allExported, clickhouseTotals, deliverableCampaign, spendOf } from '../tracking/support';
import { startAuction, type AuctionHarness } from '../auction/support';
import { adctl } from '../support/cli';

let h: AuctionHarness;
let other: AuctionHarness;
const pool = createPgPool(undefined, 2);
const clickhouse = createClickhouse();
const jobDeps = () => ({ db: h.db, pool, clickhouse, database: config.clickhouse.database, heartbeat: () => {} });
beforeAll(async () => {
  h = await startAuction();
  other = await startAuction();
});
afterAll(async () => {
  await h?.close();
  await other?.close();
  await pool.end();
  await clickhouse.close();
});

const erasures = (harness: AuctionHarness, method: 'GET' | 'POST', path = '', body?: unknown, key: string | null = harness.publisherKey) =>
  fetch(`${harness.url}/v1/publisher/user_erasures${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

/** Every row of every PostgreSQL table (its text, JSON and array columns) and every ClickHouse table (its String columns) that holds one of `needles`. */
async function rowsNaming(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY')`,
  );
  const byTable = new Map<string, string[]>();
  for (const c of columns) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  for (const [table, cols] of byTable) {
    const where = cols.flatMap((c) => needles.map((_, i) => `strpos("${c}"::text, $${i + 1}) > 0`)).join(' OR ');
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${table}" WHERE ${where}`, needles);
    if (Number(rows[0].n) > 0) found.push(`postgres ${table}: ${rows[0].n}`);
  }
  const db = config.clickhouse.database;
  const tables = (
    await (
      await clickhouse.query({
        query: `SELECT name FROM system.tables WHERE database = ${literal(db)} AND engine NOT IN ('View', 'MaterializedView')`,
        format: 'JSONEachRow',
      })
    ).json<{ name: string }>()
  ).map((t) => t.name);
  const chColumns = await (
    await clickhouse.query({
      query: `SELECT table, name, type FROM system.columns WHERE database = ${literal(db)} AND type LIKE '%String%'`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string; name: string; type: string }>();
  const chByTable = new Map<string, { name: string; type: string }[]>();
  for (const c of chColumns) if (tables.includes(c.table)) chByTable.set(c.table, [...(chByTable.get(c.table) ?? []), c]);
  for (const [table, cols] of chByTable) {
    const where = cols
      .flatMap((c) =>
        needles.map((n) =>
          c.type.startsWith('Array')
            ? `arrayExists(x -> position(toString(x), ${literal(n)}) > 0, ${identifier(c.name)})`
            : `position(toString(${identifier(c.name)}), ${literal(n)}) > 0`,
        ),
      )
      .join(' OR ');
    const [row] = await (
      await clickhouse.query({ query: `SELECT count() AS n FROM ${identifier(db)}.${identifier(table)} WHERE ${where}`, format: 'JSONEachRow' })
    ).json<{
      n: string;
    }>();
    if (Number(row.n) > 0) found.push(`clickhouse ${table}: ${row.n}`);
  }
  return found;
}

test('an erased user leaves no row that names them; another user keeps theirs; the money is exactly what it was', async () => {
  const publisherId = h.publisherId;
  const tag = randomBytes(6).toString('hex');
  const users = { erased: `erase-me-${tag}`, kept: `keep-me-${tag}` };
  const keys = {
    erased: { user: audienceKey('user', publisherId, users.erased), chat: audienceKey('chat', publisherId, `chat-a-${tag}`) },
    kept: { user: audienceKey('user', publisherId, users.kept), chat: audienceKey('chat', publisherId, `chat-b-${tag}`) },
  };
  const needles = (who: 'erased' | 'kept') => [users[who], keys[who].user, keys[who].chat];

  // Impressions as the view pixel records them (ledger, spend, frequency history, burst counters), two for the user
  // to be erased and one for the other; a win the auction recorded, and a contextual-only row of the same conversation.
  const campaign = await deliverableCampaign(h.db, await newOrg(h.db));
  // 1.5 USD CPM, under the ad group's bound (2 USD): each impression is charged PRICE micros.
  const PRICE = 1_500;
  const impression = (who: 'erased' | 'kept') => ({
    type: 'impression' as const,
    claims: { kind: 'view' as const, ...campaign.claims(PRICE * 1000, { publisher_id: publisherId, user_key: keys[who].user, chat_key: keys[who].chat }) },
    time: new Date(),
  });
  await recordDeliveries(pool, [impression('erased'), impression('erased'), impression('kept')]);
  const win = (who: 'erased' | 'kept', userKey: string) => ({
    kind: 'win' as const,
    publisherId,
    userKey,
    chatKey: keys[who].chat,
    campaignId: campaign.campaign.id,
    auctionId: randomUUID(),
    atMs: Date.now(),
    turnMark: 0,
  });
  await insertFrequencyEvents(pool, [win('erased', keys.erased.user), win('erased', ''), win('kept', keys.kept.user)]);
  await runUntilIdle(deliveryExportJob, jobDeps());
  await allExported(h.db, campaign.campaign.id);
  const money = { spend: await spendOf(h.db, campaign.campaign.id), clickhouse: await clickhouseTotals(campaign.campaign.id) };
  expect(money.spend.impressions).toBe(3n);
  expect(await rowsNaming(needles('erased'))).toEqual(
    expect.arrayContaining([expect.stringMatching(/^postgres frequency_events: 4$/), 'postgres traffic_bursts: 1']),
  );

  // The request: the key is required, the body bounded, then 202 once it is recorded.
  expect(await erasures(h, 'POST', '', { user_id: users.erased }, null)).toMatchObject({ status: 401, body: { error: { code: 'auth_required' } } });
  expect(await erasures(h, 'POST', '', { user_id: '' })).toMatchObject({ status: 400, body: { error: { code: 'required', param: 'user_id' } } });
  expect(await erasures(h, 'POST', '', { user_id: 'x'.repeat(201) })).toMatchObject({
    status: 400,
    body: { error: { code: 'string_too_long', param: 'user_id' } },
  });
  expect(await erasures(h, 'POST', '', { user_id: 'u', email: 'x' })).toMatchObject({
    status: 400,
    body: { error: { code: 'invalid_value', param: 'email' } },
  });
  const accepted = await erasures(h, 'POST', '', { user_id: users.erased });
  expect(accepted.status).toBe(202);
  const { id, requested_at } = accepted.body;
  expect(accepted.body).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    object: 'user_erasure',
    status: 'pending',
    requested_at: expect.any(String),
    due_by: new Date(Date.parse(requested_at) + 86_400_000).toISOString(),
    completed_at: null,
    deleted: { frequency_events: 0, traffic_bursts: 0 },
  });
  // Durable before the answer, and only the user's key is kept (the id itself nowhere).
  const { rows: stored } = await pool.query('SELECT status, user_key FROM user_erasures WHERE id = $1::uuid', [id]);
  expect(stored).toEqual([{ status: 'pending', user_key: keys.erased.user }]);
  // A second request while it is pending answers the same erasure; another publisher's key does not see it.
  expect((await erasures(h, 'POST', '', { user_id: users.erased })).body.id).toBe(id);
  expect(await erasures(other, 'GET', `/${id}`)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
  expect(await erasures(h, 'GET', '/not-an-id')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });

  // The worker's job sweeps it at once (the test run's worker may have been first: either way the rows are gone).
  await runUntilIdle(userErasuresJob, jobDeps());
  const swept = await erasures(h, 'GET', `/${id}`);
  expect(swept.body).toMatchObject({ status: 'pending', deleted: { frequency_events: 4, traffic_bursts: 1 } });
  expect(await rowsNaming(needles('erased'))).toEqual(['postgres user_erasures: 1']);
  // Not a micro of money moved, in either store.
  expect({ spend: await spendOf(h.db, campaign.campaign.id), clickhouse: await clickhouseTotals(campaign.campaign.id) }).toEqual(money);

  // A view link minted before the request fires late: its row has the user's key again, until the second sweep,
  // due once every such link has expired; then the erasure is done and its own row forgets the key.
  await recordDeliveries(pool, [impression('erased')]);
  expect(await rowsNaming([keys.erased.user])).toEqual(expect.arrayContaining(['postgres frequency_events: 1']));
  await sweepUserErasures(pool, { settleMs: userErasureSettleMs(), now: Date.parse(requested_at) + userErasureSettleMs() + 1_000 });
  const done = await erasures(h, 'GET', `/${id}`);
  expect(done).toEqual({
    status: 200,
    body: { ...accepted.body, status: 'done', completed_at: expect.any(String), deleted: { frequency_events: 5, traffic_bursts: 2 } },
  });
  await runUntilIdle(deliveryExportJob, jobDeps());
  await allExported(h.db, campaign.campaign.id);
  expect(await rowsNaming(needles('erased'))).toEqual([]);

  // The other user's rows are all there; the money is what it was, plus the late impression's charge, in both stores.
  expect(await rowsNaming(needles('kept'))).toEqual(expect.arrayContaining(['postgres frequency_events: 2', 'postgres traffic_bursts: 1']));
  const after = { spend: await spendOf(h.db, campaign.campaign.id), clickhouse: await clickhouseTotals(campaign.campaign.id) };
  expect(money.spend.spent).toBe(BigInt(3 * PRICE));
  expect(after.spend).toMatchObject({ impressions: 4n, spent: BigInt(4 * PRICE) });
  expect(after.clickhouse).toMatchObject({ impressions: 4, spend: BigInt(4 * PRICE) });
}, 120_000);

test('a later request for the same user is a new erasure once the first is done', async () => {
  const user = `again-${randomBytes(6).toString('hex')}`;
  const first = await erasures(h, 'POST', '', { user_id: user });
  await sweepUserErasures(pool, { settleMs: 0 });
  expect((await erasures(h, 'GET', `/${first.body.id}`)).body.status).toBe('done');
  const second = await erasures(h, 'POST', '', { user_id: user });
  expect(second.status).toBe(202);
  expect(second.body.id).not.toBe(first.body.id);
});

test('adctl publisher forget-user records the same erasure the API does; adctl publisher erasure reads it', async () => {
  const user = `cli-${randomBytes(6).toString('hex')}`;
  const forgot = await adctl('publisher', 'forget-user', h.publisherId, '--user-id', user);
  expect(forgot).toMatchObject({ code: 0 });
  const erasure = JSON.parse(forgot.stdout);
  expect(erasure).toMatchObject({ object: 'user_erasure', status: 'pending', completed_at: null });
  // The host asking again while it is pending gets the same erasure, and sees it with its key.
  expect((await erasures(h, 'POST', '', { user_id: user })).body.id).toBe(erasure.id);
  const shown = await adctl('publisher', 'erasure', h.publisherId, erasure.id);
  expect(JSON.parse(shown.stdout)).toEqual(erasure);
  expect(await adctl('publisher', 'forget-user', h.publisherId)).toMatchObject({ code: 2, stderr: expect.stringContaining('--user-id is required') });
  expect(await adctl('publisher', 'erasure', other.publisherId, erasure.id)).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('No such user erasure for this publisher'),
  });
}, 240_000);
