/**
 * One organization's bad event must never stop or fail anyone else's
 * (hardening round two): strings that are not well-formed Unicode and
 * unbounded `params`/`consent` are refused at intake; a row ClickHouse refuses
 * anyway (here put straight into the inbox) is set aside as a dead letter while
 * the events behind it arrive; a failed flush fails only its own requests.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { config } from '../../lib/config';
import { createInboxWriter, insertInboxRows, serializeEvents } from '../../domain/events/inbox';
import { OBJECT_LIMITS } from '../../domain/events/event';
import { adctl } from '../support/cli';
import { call, errorBody, useHarness } from '../support/harness';
import { clickhouse, keyedOrg, storedEvents, waitForEvents } from './support';
import { until } from '../support/wait';

const h = useHarness([clickhouse]);

const org = () => keyedOrg(h.db);
/** JSON with a lone UTF-16 surrogate escaped as `\ud800`, as a client would send it (JSON.stringify would too). */
const LONE = '\ud800';
const collect = (key: string, body: unknown, query = '') => call(h.url, 'POST', `/api/collect${query}`, { token: key, body });
/** An event whose `field` nests `depth` objects, as JSON text (JSON.stringify itself overflows at 20,000). */
const deepEvent = (field: string, depth: number) => `{"event_name":"deep","${field}":${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}}`;
const collectRaw = (key: string, text: string) =>
  call(h.url, 'POST', '/api/collect', { token: key, rawBody: text, headers: { 'content-type': 'application/json' } });

describe('strings that are not well-formed Unicode are refused at intake', () => {
  test.each([
    ['a field', { event_name: 'purchase', page_url: `https://shop.example/${LONE}` }, 'page_url'],
    ['event_name', { event_name: `buy${LONE}` }, 'event_name'],
    ['a params value', { event_name: 'purchase', params: { items: [{ sku: 'a' }, { sku: `b${LONE}` }] } }, 'params.items[1].sku'],
    ['a params key', { event_name: 'purchase', params: { nested: { [`k${LONE}`]: 1 } } }, 'params.nested'],
    ['a consent value', { event_name: 'purchase', consent: { ad_storage: `granted${LONE}` } }, 'consent.ad_storage'],
  ])('in %s: 400 invalid_value naming it, with and without validate_only', async (_where, event, param) => {
    const { key } = await org();
    for (const query of ['', '?validate_only=true']) {
      const res = await collect(key, event, query);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', param));
    }
  });

  test('in a batch: that event is rejected with its param, the others are stored', async () => {
    const { key, id } = await org();
    const res = await collect(key, { events: [{ event_name: 'ok_1' }, { event_name: 'bad', referrer: LONE }, { event_name: 'ok_2' }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 2, rejected: 1 });
    expect(res.body.results[1]).toEqual({
      index: 1,
      status: 'rejected',
      error: { code: 'invalid_value', message: expect.any(String), param: 'events[1].referrer' },
    });
    const rows = await waitForEvents(id, (r) => r.length === 2);
    expect(rows.map((r) => r.event_name).sort()).toEqual(['ok_1', 'ok_2']);
  });
});

describe('params and consent are bounded before they join a shared flush', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i += 1) value = { a: value };
    return value as Record<string, unknown>;
  };

  test('nesting, member count and length have caps: 400 invalid_value on the field; at the caps it is stored', async () => {
    const { key, id } = await org();
    const refused: [string, string][] = [
      [deepEvent('params', 20_000), 'params'],
      [deepEvent('params', OBJECT_LIMITS.maxDepth + 1), 'params'],
      [deepEvent('consent', OBJECT_LIMITS.maxDepth + 1), 'consent'],
      [JSON.stringify({ event_name: 'many', params: { list: Array.from({ length: OBJECT_LIMITS.maxMembers }, (_, i) => i) } }), 'params'],
      [JSON.stringify({ event_name: 'long', params: { text: 'x'.repeat(OBJECT_LIMITS.maxJsonLength) } }), 'params'],
    ];
    for (const [text, param] of refused) {
      const res = await collectRaw(key, text);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_value', 'invalid_request_error', param));
    }
    const atCaps = { params: nested(OBJECT_LIMITS.maxDepth), consent: { list: Array.from({ length: OBJECT_LIMITS.maxMembers - 1 }, (_, i) => i) } };
    expect((await collect(key, { event_name: 'at_caps', ...atCaps })).status).toBe(204);
    const [row] = await waitForEvents(id, (r) => r.length === 1);
    expect(JSON.parse(row.params)).toEqual(atCaps.params);
  });

  test("a 20,000-deep event from one organization fails none of another's requests sent alongside", async () => {
    const a = await org();
    const b = await org();
    const deep = deepEvent('params', 20_000);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? collectRaw(a.key, deep) : collect(b.key, { event_name: 'b', event_id: `b-${i}` }))),
    );
    results.forEach((res, i) => expect(res.status).toBe(i % 4 === 0 ? 400 : 204));
    expect(await waitForEvents(b.id, (r) => r.length === 30)).toHaveLength(30);
  });

  test('a flush that fails fails only the requests it belongs to', async () => {
    const b = await org();
    // A real inbox writer over a real pool; one submission PostgreSQL refuses (no such uuid), sent in the same flush as good ones.
    const pool = new Pool({ connectionString: config.databaseUrl, max: 1 });
    const writer = createInboxWriter(pool, async () => ({ allowed: true }), { maxBatch: 100, maxConcurrentFlushes: 1 });
    try {
      const submission = (organizationId: string, name: string) =>
        writer.submit({
          organizationId,
          apiKeyId: 'k',
          receivedAt: new Date(),
          ipAddress: '127.0.0.1',
          events: serializeEvents([{ event_name: name }]),
        });
      const blocker = submission(b.id, 'first'); // flushed alone: the rest queue behind it and share the next flush
      const rest = [submission(b.id, 'good_1'), submission('not-a-uuid', 'bad'), submission(b.id, 'good_2')];
      const settled = await Promise.allSettled([blocker, ...rest]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    } finally {
      await pool.end();
    }
    const rows = await waitForEvents(b.id, (r) => r.length === 3);
    expect(rows.map((r) => r.event_name).sort()).toEqual(['first', 'good_1', 'good_2']);
  });
});

describe('a row ClickHouse refuses becomes a dead letter; the pipeline goes on', () => {
  test('a poisoned inbox row (bypassing intake) is set aside with its error, visible through adctl and the metric; the next good event still arrives', async () => {
    const { key, id } = await org();
    // Straight into the inbox: what intake now refuses, and a row that is not even JSON.
    await insertInboxRows(h.db, [
      {
        organizationId: id,
        apiKeyId: 'unused',
        receivedAt: new Date(),
        ipAddress: '127.0.0.1',
        events: [JSON.stringify({ event_name: 'purchase', page_url: `https://shop.example/${LONE}` }), '{"event_name": "cut off'],
      },
    ]);
    const poisoned = await h.db.eventInbox.findMany({ where: { organizationId: id }, orderBy: { id: 'asc' } });
    expect(poisoned).toHaveLength(2);

    const name = `after_${randomUUID()}`;
    expect((await collect(key, { event_name: name })).status).toBe(204);
    const rows = await waitForEvents(id, (r) => r.some((e) => e.event_name === name));
    expect(rows.map((r) => r.event_name)).toEqual([name]);
    // ClickHouse has the batch a moment before the transaction that consumes it (and sets the dead letters aside) commits.
    await until(async () => (await h.db.eventInbox.count({ where: { organizationId: id } })) === 0, 'the batch consumed');

    const letters = await h.db.deadLetter.findMany({
      where: { targetTable: 'collected_events', rowKey: { in: poisoned.map((p) => p.id.toString()) } },
      orderBy: { rowKey: 'asc' },
    });
    expect(letters).toHaveLength(2);
    expect(letters.map((l) => l.error).join('\n')).toMatch(/surrogate/);
    expect(letters.map((l) => l.error).join('\n')).toMatch(/unreadable inbox row/);

    const listed = JSON.parse((await adctl('dead-letters', 'list', '--table', 'collected_events', '--limit', '1000')).stdout);
    expect(listed.counts.collected_events).toBeGreaterThanOrEqual(2);
    expect(listed.dead_letters).toEqual(
      expect.arrayContaining([expect.objectContaining({ row_key: poisoned[0].id.toString(), error: expect.stringMatching(/surrogate/) })]),
    );

    const metrics = await (await fetch(h.metricsUrl)).text();
    const gauge = Number(/^api_dead_letters\{table="collected_events"\} (\d+)$/m.exec(metrics)?.[1]);
    expect(gauge).toBeGreaterThanOrEqual(2);

    const deleted = JSON.parse((await adctl('dead-letters', 'delete', ...letters.map((l) => l.id.toString()))).stdout);
    expect(deleted).toEqual({ deleted: 2 });
    expect(await storedEvents(id)).toHaveLength(1);
  });
});
