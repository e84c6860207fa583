/**
 * The pipeline's exactly-once recovery, driven deterministically: the state a
 * worker leaves when it dies after its ClickHouse insert and before the inbox
 * delete (batch marked in flight, some rows already in ClickHouse) is set up by
 * hand while this test holds the pipeline's lock; the next batch completes it.
 */
import { Client as PgClient, type PoolClient } from 'pg';
import { config } from '../../lib/config';
import { geoLookup } from '../../domain/events/geo';
import { pruneCollectedEventIds, recordFirstSeen } from '../../domain/events/event-ids';
import { EVENT_PIPELINE_LOCK, inboxRows, inboxWork, moveEventBatch } from '../../jobs/event-mover';
import { COLLECTED_EVENTS_TABLE } from '../../domain/events/clickhouse-tables';
import { enrich } from '../../domain/events/enrich';
import { insertInboxRows, serializeEvents } from '../../domain/events/inbox';
import { organizationIdOf } from '../support/fixtures';
import { useHarness, newOrg } from '../support/harness';
import { clickhouse, storedEvents, waitForEvents } from './support';
import { until } from '../support/wait';

const LOCK_KEY = EVENT_PIPELINE_LOCK;
const h = useHarness([clickhouse]);

it('redoes an in-flight batch without doubling what ClickHouse already has', async () => {
  const orgId = await organizationIdOf(h.db, await newOrg(h.db));
  const lock = new PgClient({ connectionString: config.databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]); // waits for a running batch to finish
    await insertInboxRows(h.db, [
      {
        organizationId: orgId,
        apiKeyId: 'unused',
        receivedAt: new Date(),
        ipAddress: '127.0.0.1',
        events: serializeEvents([{ event_name: 'r1', event_id: 'same' }, { event_name: 'r2' }, { event_name: 'r3' }, { event_name: 'r4', event_id: 'same' }]),
      },
    ]);
    const inbox = await h.db.eventInbox.findMany({ where: { organizationId: orgId }, orderBy: { id: 'asc' } });
    expect(inbox).toHaveLength(4);
    // The dead attempt: ledger written, batch in flight, rows 1 and 2 already inserted.
    await h.db.collectedEventId.create({ data: { organizationId: orgId, eventId: 'same', inboxId: inbox[0].id } });
    await h.db.eventPipelineState.upsert({
      where: { id: 1 },
      create: { id: 1, inFlightFrom: inbox[0].id, inFlightTo: inbox[3].id },
      update: { inFlightFrom: inbox[0].id, inFlightTo: inbox[3].id },
    });
    await clickhouse.insert({
      table: COLLECTED_EVENTS_TABLE,
      format: 'JSONEachRow',
      values: inbox.slice(0, 2).map((r) => enrich({ ...r, event: JSON.parse(r.event) }, geoLookup)),
    });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    await lock.end();
  }
  // Whichever mover gets the lock next (this call or the test run's worker) finishes the batch.
  while ((await h.db.eventInbox.count({ where: { organizationId: orgId } })) > 0) {
    await moveEventBatch({ db: h.db, clickhouse, geo: geoLookup }, { waitMs: 0, batchSize: 100 });
  }
  const rows = await waitForEvents(orgId, (r) => r.length >= 3);
  expect(rows.map((r) => r.event_name).sort()).toEqual(['r1', 'r2', 'r3']); // r4 repeats event_id "same"
  expect(await storedEvents(orgId)).toHaveLength(3);
  expect(await h.db.eventPipelineState.findUnique({ where: { id: 1 } })).toMatchObject({ inFlightFrom: null, inFlightTo: null });
});

it('recordFirstSeen: the first inbox row of each id wins, within a batch, against earlier batches, and when a batch is redone', async () => {
  const [a, b] = await Promise.all([newOrg(h.db), newOrg(h.db)].map(async (o) => organizationIdOf(h.db, await o)));
  const client = new PgClient({ connectionString: config.databaseUrl });
  await client.connect();
  const winners = async (events: [string, string, string][]) =>
    (
      await recordFirstSeen(
        client as unknown as PoolClient,
        events.map(([organizationId, eventId, inboxId]) => ({ organizationId, eventId, inboxId })),
      )
    )
      .map((w) => `${w.org === a ? 'a' : 'b'}/${w.event_id}=${w.inbox_id}`)
      .sort();
  try {
    await client.query('BEGIN'); // rolled back: the inbox ids are made up
    // All new: each row its own winner.
    expect(
      await winners([
        [a, 'x', '901'],
        [b, 'x', '902'],
      ]),
    ).toEqual(['a/x=901', 'b/x=902']);
    // A repeat of an earlier batch's id, and one id twice in this batch: the earliest row holds each.
    const batch: [string, string, string][] = [
      [a, 'x', '903'],
      [a, 'y', '904'],
      [a, 'y', '905'],
    ];
    expect(await winners(batch)).toEqual(['a/x=901', 'a/y=904', 'a/y=904']);
    // The same batch again (a mover redoing it after a crash): nothing is inserted, the same winners.
    expect(await winners(batch)).toEqual(['a/x=901', 'a/y=904', 'a/y=904']);
  } finally {
    await client.query('ROLLBACK');
    await client.end();
  }
});

it('forgets event ids older than the dedupe window (a later event with that id counts again), and only those', async () => {
  const orgId = await organizationIdOf(h.db, await newOrg(h.db));
  const day = 86_400_000;
  await h.db.collectedEventId.createMany({
    data: [
      { organizationId: orgId, eventId: 'eight-days-old', inboxId: 1n, createdAt: new Date(Date.now() - 8 * day) },
      { organizationId: orgId, eventId: 'six-days-old', inboxId: 2n, createdAt: new Date(Date.now() - 6 * day) },
      { organizationId: orgId, eventId: 'new', inboxId: 3n },
    ],
  });
  expect(await pruneCollectedEventIds(h.db, 7)).toBeGreaterThanOrEqual(1);
  const left = await h.db.collectedEventId.findMany({ where: { organizationId: orgId }, orderBy: { inboxId: 'asc' } });
  expect(left.map((r) => r.eventId)).toEqual(['six-days-old', 'new']);
});

it("dedupes by (organization, event_id): two organizations' events with one event_id in the same batch each keep their row", async () => {
  const [a, b] = await Promise.all([newOrg(h.db), newOrg(h.db)].map(async (o) => organizationIdOf(h.db, await o)));
  const row = (organizationId: string, name: string) => ({
    organizationId,
    apiKeyId: 'unused',
    receivedAt: new Date(),
    ipAddress: '127.0.0.1',
    events: serializeEvents([{ event_name: name, event_id: 'shared-id' }]),
  });
  // One statement: the mover takes them in one batch.
  await insertInboxRows(h.db, [row(a, 'from_a'), row(b, 'from_b'), row(a, 'a_again')]);
  expect((await waitForEvents(a, (r) => r.length >= 1)).map((r) => r.event_name)).toEqual(['from_a']);
  expect((await waitForEvents(b, (r) => r.length >= 1)).map((r) => r.event_name)).toEqual(['from_b']);
  await until(async () => (await h.db.eventInbox.count({ where: { organizationId: { in: [a, b] } } })) === 0, 'the batch consumed');
  expect(await storedEvents(a)).toHaveLength(1);
});

it('inboxWork: a batch is due once a full one may wait or the oldest row has waited its gather time', async () => {
  const orgId = await organizationIdOf(h.db, await newOrg(h.db));
  const lock = new PgClient({ connectionString: config.databaseUrl });
  await lock.connect();
  const hour = 3_600_000;
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]); // no mover takes the rows meanwhile
    const row = { organizationId: orgId, apiKeyId: 'unused', receivedAt: new Date(), ipAddress: '127.0.0.1' };
    await insertInboxRows(h.db, [{ ...row, events: serializeEvents(['a', 'b', 'c', 'd', 'e'].map((event_name) => ({ event_name }))) }]);
    // Other tests' rows may wait too: they only widen the span, and none has waited an hour (`recovering` is theirs too: kill.test.ts).
    expect(await inboxWork(h.db, 5, hour)).toMatchObject({ waiting: true, due: true });
    expect(await inboxWork(h.db, 1_000_000_000, hour)).toMatchObject({ waiting: true, due: false });
    expect(await inboxWork(h.db, 1_000_000_000, 0)).toMatchObject({ waiting: true, due: true });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    await lock.end();
  }
  expect(await waitForEvents(orgId, (r) => r.length >= 5)).toHaveLength(5);
});

it('reads the inbox in id order across a power of ten, and moves every row', async () => {
  const orgId = await organizationIdOf(h.db, await newOrg(h.db));
  const names = ['a', 'b', 'c', 'd', 'e', 'f'];
  const lock = new PgClient({ connectionString: config.databaseUrl });
  await lock.connect();
  let base = 0n;
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]); // no mover takes them meanwhile
    await insertInboxRows(h.db, [
      {
        organizationId: orgId,
        apiKeyId: 'unused',
        receivedAt: new Date(),
        ipAddress: '127.0.0.1',
        events: serializeEvents(names.map((event_name) => ({ event_name }))),
      },
    ]);
    // Renumbered across a power of ten past every id the sequence gave ('1000' sorts before '999' as text).
    const { last } = (await lock.query<{ last: string }>('SELECT last_value::text AS last FROM event_inbox_id_seq')).rows[0];
    base = 10n ** BigInt(last.length + 1);
    await lock.query(
      `UPDATE event_inbox e SET id = $2::bigint - 4 + r.n
         FROM (SELECT id, row_number() OVER (ORDER BY event_inbox.id) AS n FROM event_inbox WHERE organization_id = $1) r WHERE e.id = r.id`,
      [orgId, base.toString()],
    );
    const mine = Array.from({ length: 6 }, (_, i) => (base - 3n + BigInt(i)).toString());
    const oldest = (await inboxRows(lock as unknown as PoolClient, { limit: 100_000 })).map((r) => r.id);
    expect(oldest.filter((id) => mine.includes(id))).toEqual(mine);
    expect(oldest.map(BigInt)).toEqual([...oldest.map(BigInt)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    const inFlight = await inboxRows(lock as unknown as PoolClient, { from: mine[0], to: mine[5] });
    expect(inFlight.map((r) => [r.id, JSON.parse(r.event).event_name])).toEqual(mine.map((id, i) => [id, names[i]]));
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    await lock.end();
  }
  const rows = await waitForEvents(orgId, (r) => r.length >= 6);
  expect(rows.map((r) => r.event_name).sort()).toEqual(names);
  expect(await storedEvents(orgId)).toHaveLength(6);
});
