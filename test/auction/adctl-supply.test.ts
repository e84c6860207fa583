/**
 * The supply-side operator commands, run as operators run them (the real
 * bin/adctl in a child process): publishers, DSPs, `dsp check` against the
 * reference DSP in each fault mode, `dsp report` from ClickHouse; and the
 * auction process itself draining its log on SIGTERM.
 */
import { startAuctionProcess } from '../../dev/processes';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../lib/db';
import { hashSecret } from '../../lib/secrets';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { adctl, type AdctlRun } from '../support/cli';
import { createPublisher } from '../../domain/publishers';
import { startReferenceDsp, type Fault, type ReferenceDsp, type CreativeKind } from '../../dev/reference-dsp/server';
import { adRequest, contextualRequest } from './support';

let db: Db;
beforeAll(() => {
  db = createDb(undefined, 2);
});
afterAll(async () => {
  await db.$disconnect();
});

function output<T = any>(run: AdctlRun): T {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^\{.*\}\n$/);
  return JSON.parse(run.stdout) as T;
}
const unique = () => randomBytes(4).toString('hex');

describe('publishers', () => {
  test('create prints the id and the key once; the key is stored hashed; list shows it without the key', async () => {
    const name = `Chat host ${unique()}`;
    const created = output(await adctl('publisher', 'create', '--name', name, '--domain', 'Chat.Example'));
    expect(Object.keys(created).sort()).toEqual(['publisher_id', 'publisher_key']);
    expect(created.publisher_key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    const row = await db.publisher.findUniqueOrThrow({ where: { publicId: created.publisher_id } });
    expect(row).toMatchObject({ name, domain: 'chat.example', keyHash: hashSecret(created.publisher_key), tmaxMs: 2000 });
    const listed = output(await adctl('publisher', 'list'));
    const mine = listed.publishers.find((p: any) => p.publisher_id === created.publisher_id);
    expect(mine).toEqual({
      publisher_id: created.publisher_id,
      name,
      domain: 'chat.example',
      tmax: 2000,
      floor_cpm: 0,
      max_ads_per_conversation: null,
      min_turns_between_ads: null,
      block_categories: [],
      allow_categories: [],
      block_advertisers: [],
      rate_limit: null,
      min_relevance: null,
      teen_contextual_ads: false,
      test: false,
      enabled: true,
      created_at: expect.any(String),
    });
    expect(JSON.stringify(listed)).not.toContain(created.publisher_key);
  });

  test('usage errors exit 2 with nothing on stdout', async () => {
    const run = await adctl('publisher', 'create');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--name is required/);
    const bad = await adctl('publisher', 'create', '--name', 'x', '--tmax', '5000');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/tmax/);
  });
});

describe('publisher settings', () => {
  test('create --test makes a sandbox; update sets every setting; show prints them; none and an empty list clear', async () => {
    const created = output(await adctl('publisher', 'create', '--name', `Sandbox ${unique()}`, '--test'));
    expect(output(await adctl('publisher', 'show', created.publisher_id))).toMatchObject({ test: true, floor_cpm: 0, block_advertisers: [] });
    const updated = output(
      await adctl(
        'publisher',
        'update',
        created.publisher_id,
        '--floor-cpm',
        '1.25',
        '--tmax',
        '800',
        '--max-ads-per-conversation',
        '3',
        '--min-turns-between-ads',
        '2',
        '--block-categories',
        'IAB7,596',
        '--allow-categories',
        'politics',
        '--block-advertisers',
        'Rival.example, other.example',
      ),
    );
    expect(updated).toMatchObject({
      tmax: 800,
      floor_cpm: 1.25,
      max_ads_per_conversation: 3,
      min_turns_between_ads: 2,
      block_categories: ['IAB7', '596'],
      allow_categories: ['politics'],
      block_advertisers: ['rival.example', 'other.example'],
    });
    const row = await db.publisher.findUniqueOrThrow({ where: { publicId: created.publisher_id } });
    expect(row.floorMicros).toBe(1_250_000n);
    const cleared = output(await adctl('publisher', 'update', created.publisher_id, '--max-ads-per-conversation', 'none', '--block-advertisers', ''));
    expect(cleared).toMatchObject({ max_ads_per_conversation: null, block_advertisers: [], block_categories: ['IAB7', '596'] });
    expect(output(await adctl('publisher', 'show', created.publisher_id))).toEqual(cleared);
  });

  test('bad settings: the domain error and nothing changed; no flag, an unknown publisher', async () => {
    const { publisher_id } = output(await adctl('publisher', 'create', '--name', `Host ${unique()}`));
    for (const [flag, value, param] of [
      ['--allow-categories', 'self_harm', 'allow_categories'],
      ['--block-advertisers', 'not a domain', 'block_advertisers'],
      ['--block-categories', 'IAB 7', 'block_categories'],
      ['--floor-cpm', '2000', 'floor_cpm'],
      ['--min-turns-between-ads', '1.5', 'min_turns_between_ads'],
    ]) {
      const run = await adctl('publisher', 'update', publisher_id, '--tmax', '900', flag, value);
      expect([flag, run.code, run.stdout]).toEqual([flag, 1, '']);
      expect(run.stderr).toContain(param);
    }
    expect(output(await adctl('publisher', 'show', publisher_id))).toMatchObject({ tmax: 2000, allow_categories: [], block_advertisers: [] });
    expect((await adctl('publisher', 'update', publisher_id)).code).toBe(2);
    const unknown = await adctl('publisher', 'show', '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/publisher/);
  });

  test('numeric flags take decimal digits only (0x10 is not 16): a usage error naming the flag, nothing changed or created', async () => {
    const { publisher_id } = await createPublisher(db, { name: `Host ${unique()}` });
    const name = `Hex tmax ${unique()}`;
    const runs = await Promise.all([
      adctl('publisher', 'update', publisher_id, '--floor-cpm', '0x10'),
      adctl('publisher', 'update', publisher_id, '--floor-cpm', '1e1'),
      adctl('publisher', 'update', publisher_id, '--floor-cpm', ' '),
      adctl('publisher', 'update', publisher_id, '--tmax', '0x3E8'),
      adctl('publisher', 'update', publisher_id, '--max-ads-per-conversation', '0b11'),
      adctl('publisher', 'update', publisher_id, '--min-turns-between-ads', 'Infinity'),
      adctl('publisher', 'create', '--name', name, '--tmax', '0x3E8'),
    ]);
    const flags = ['floor-cpm', 'floor-cpm', 'floor-cpm', 'tmax', 'max-ads-per-conversation', 'min-turns-between-ads', 'tmax'];
    expect(runs.map((run) => [run.code, run.stdout, /^adctl: --([a-z-]+) must be a decimal/.exec(run.stderr)?.[1]])).toEqual(flags.map((f) => [2, '', f]));
    const row = await db.publisher.findUniqueOrThrow({ where: { publicId: publisher_id } });
    expect(row).toMatchObject({ floorMicros: 0n, tmaxMs: 2000, maxAdsPerConversation: null, minTurnsBetweenAds: null });
    expect(await db.publisher.count({ where: { name } })).toBe(0);
  }, 120_000);
});

describe('dsp add, list, disable', () => {
  test('add (native and openrtb with URL auth), list without keys, disable', async () => {
    const native = output(
      await adctl(
        'dsp',
        'add',
        '--name',
        `n-${unique()}`,
        '--protocol',
        'native',
        '--bid-url',
        'http://127.0.0.1:9/bid',
        '--render-url',
        'http://127.0.0.1:9/render',
        '--key',
        'secret-key-1',
      ),
    );
    const ortb = output(
      await adctl(
        'dsp',
        'add',
        '--name',
        `o-${unique()}`,
        '--protocol',
        'openrtb',
        '--bid-url',
        'http://127.0.0.1:9/ortb?pub=1',
        '--auth',
        'url',
        '--site-id',
        'S1',
        '--publisher-id',
        'P1',
      ),
    );
    const list = output(await adctl('dsp', 'list'));
    expect(JSON.stringify(list)).not.toContain('secret-key-1');
    expect(list.dsps.find((d: any) => d.dsp_id === native.dsp_id)).toMatchObject({
      protocol: 'native',
      auth: 'bearer',
      has_key: true,
      enabled: true,
      render_url: 'http://127.0.0.1:9/render',
    });
    expect(list.dsps.find((d: any) => d.dsp_id === ortb.dsp_id)).toMatchObject({
      protocol: 'openrtb',
      auth: 'url',
      has_key: false,
      site_id_override: 'S1',
      publisher_id_override: 'P1',
    });
    expect(output(await adctl('dsp', 'disable', native.dsp_id))).toEqual({ dsp_id: native.dsp_id, enabled: false });
    await adctl('dsp', 'disable', ortb.dsp_id);
    expect((await db.dsp.findUniqueOrThrow({ where: { id: native.dsp_id } })).enabled).toBe(false);
  });

  test.each([
    [['--name', 'x', '--protocol', 'smoke', '--bid-url', 'http://127.0.0.1:9/'], /protocol/],
    [['--name', 'x', '--protocol', 'native', '--bid-url', 'ftp://127.0.0.1/'], /bid_url/],
    [['--name', 'x', '--protocol', 'native', '--bid-url', 'http://127.0.0.1:9/', '--key', 'k'], /render_url/],
    [['--name', 'x', '--protocol', 'openrtb', '--bid-url', 'http://127.0.0.1:9/'], /key/],
  ])('invalid add %j: error, exit non-zero', async (args, message) => {
    const run = await adctl('dsp', 'add', ...args);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  test('disable an unknown DSP: error', async () => {
    const run = await adctl('dsp', 'disable', '00000000-0000-4000-8000-000000000000');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No such DSP/);
  });
});

describe('dsp check against the reference DSP', () => {
  let dsp: ReferenceDsp;
  const key = 'check-key';
  beforeAll(async () => {
    dsp = await startReferenceDsp({ key });
  });
  afterAll(async () => {
    await dsp.close();
  });

  async function check(protocol: 'native' | 'openrtb', fault: Fault, creative: CreativeKind = 'image') {
    dsp.set({ fault, creative, slowMs: 2500 });
    const run = await adctl('dsp', 'check', `${dsp.url}/${protocol === 'native' ? 'native/bid' : 'openrtb'}`, '--protocol', protocol, '--key', key);
    return output<{ ok: boolean; checks: { name: string; ok: boolean; reason: string | null }[] }>(run);
  }
  const reasons = (r: { checks: { reason: string | null }[] }) => new Set(r.checks.map((c) => c.reason).filter(Boolean));

  test('a conforming DSP passes every check (both request types, both render modes, carousel offered)', async () => {
    const report = await check('native', 'none');
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      'native contextual image: bid',
      'native contextual text (image_enabled false): bid',
      'native opener image: bid',
      'native opener text (image_enabled false): bid',
      'native carousel offered: bid',
    ]);
    const rendered = await check('native', 'none', 'render');
    expect(rendered.ok).toBe(true);
    expect(rendered.checks.filter((c) => c.name.endsWith(': render'))).toHaveLength(5);
  });

  test.each<[Fault, CreativeKind, string[]]>([
    ['invalid_ad_data', 'image', ['invalid_ad_data']],
    ['wrong_placement', 'image', ['dsp_invalid_image_bid', 'dsp_invalid_text_bid']],
    ['missing_placement', 'image', ['dsp_missing_placement']],
    ['http_500', 'image', ['dsp_http_error']],
    ['garbage_json', 'image', ['invalid_response']],
    ['expired_render', 'image', ['render_failed']],
    ['render_invalid', 'image', ['invalid_ad_data']],
    ['bad_carousel', 'carousel', ['invalid_carousel']],
  ])('native fault %s: not ok, with the spec reason names %j', async (fault, creative, expected) => {
    const report = await check('native', fault, creative);
    expect(report.ok).toBe(false);
    expect([...reasons(report)].sort()).toEqual(expect.arrayContaining(expected));
  });

  test('native fault slow (past the 2000 ms tmax): timeout', async () => {
    const report = await check('native', 'slow');
    expect(report.ok).toBe(false);
    expect(reasons(report)).toEqual(new Set(['timeout']));
  }, 60_000);

  test('OpenRTB: every tagid checked; a conforming DSP passes; the signals the requests carried are shown', async () => {
    const report = await check('openrtb', 'none');
    // docs/signals.md: what the check's conversation ("Which running shoes for a first marathon?") told the DSP.
    expect(report).toEqual({
      ok: true,
      checks: expect.any(Array),
      signals: {
        search: 'Which running shoes for a first marathon?',
        keywords: 'running shoes,marathon,cushioned trainers,distances',
        cat: ['223', '225'],
        cattax: 7,
        language: 'en',
      },
    });
    expect(report.checks.map((c) => c.name)).toEqual([
      'openrtb sponsored_message_image_v1: bid',
      'openrtb sponsored_message_text_v1: bid',
      'openrtb opener_image_v1: bid',
      'openrtb opener_text_v1: bid',
    ]);
  });

  test.each<[Fault, string]>([
    ['insecure', 'not_secure'],
    ['small_image', 'image_too_small'],
    ['missing_asset', 'missing_required_asset'],
    ['image_on_text_slot', 'dsp_invalid_text_bid'],
    ['http_500', 'dsp_http_error'],
    ['garbage_json', 'invalid_response'],
  ])('OpenRTB fault %s: %s', async (fault, reason) => {
    const report = await check('openrtb', fault);
    expect(report.ok).toBe(false);
    expect(reasons(report).has(reason)).toBe(true);
  });
});

describe('dsp report and the auction process', () => {
  test('SIGTERM drains the log; dsp report counts bids, wins and non-bid reasons per DSP', async () => {
    const dsp = await startReferenceDsp({ key: 'rk', price: 2 });
    const added = output(
      await adctl(
        'dsp',
        'add',
        '--name',
        `report-${unique()}`,
        '--protocol',
        'native',
        '--bid-url',
        `${dsp.url}/native/bid`,
        '--render-url',
        `${dsp.url}/native/render`,
        '--key',
        'rk',
      ),
    );
    const pub = output(await adctl('publisher', 'create', '--name', `report host ${unique()}`));
    // A real auction process on a free port; its batches flush only on SIGTERM.
    const auction = await startAuctionProcess({ NODE_ENV: 'test', AUCTION_LOG_FLUSH_MS: '600000', AUCTION_LOG_BATCH: '100000' });
    const child = auction.child;
    try {
      const url = auction.url;
      const h = { url, publisherKey: pub.publisher_key } as any;
      // The other DSPs in the shared database may be anything: count only ours.
      for (let i = 0; i < 3; i += 1) {
        const res = await adRequest(h, contextualRequest({ country_code: 'AQ' }));
        expect(res.status).toBe(200);
      }
      dsp.set({ fault: 'invalid_ad_data' });
      await adRequest(h, contextualRequest({ country_code: 'AQ' }));
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.once('exit', r));
      expect({ code, output: code === 0 ? '' : auction.output() }).toEqual({ code: 0, output: '' });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await adctl('dsp', 'disable', added.dsp_id);
      await dsp.close();
    }
    const clickhouse = createClickhouse();
    const rows = await (
      await clickhouse.query({ query: sql`SELECT count() AS n FROM auction_bids WHERE bidder_id = ${added.dsp_id}`, format: 'JSONEachRow' })
    ).json<{ n: number }>();
    await clickhouse.close();
    expect(Number(rows[0].n)).toBe(4);
    const report = output(await adctl('dsp', 'report', '--dsp', added.dsp_id, '--since', new Date(Date.now() - 3_600_000).toISOString()));
    expect(report.dsps).toHaveLength(1);
    expect(report.dsps[0]).toMatchObject({ dsp_id: added.dsp_id, requests: 4, bids: 3, non_bids: [{ reason: 'invalid_ad_data', code: 350, count: 1 }] });
    expect(report.dsps[0].wins).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
