/**
 * What an auction test needs: the auction service in-process on a free port
 * (real PostgreSQL, ClickHouse, LISTEN/NOTIFY), reference DSPs on loopback,
 * a publisher key, and a valid request body to vary.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createAuction, type Auction, type AuctionDeps } from '../../auction/app';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { createDb, type Db } from '../../lib/db';
import { until } from '../support/wait';

/** test/support/wait.ts's, for the files that still import it from here. */
export { until };
import { createPublisher } from '../../domain/publishers';
import { addDsp } from '../../domain/dsps';
import { startReferenceDsp, type ReferenceDsp, type ReferenceDspOptions } from '../../dev/reference-dsp/server';
import { startMetricsServer } from '../../lib/metrics-server';

export interface AuctionHarness {
  url: string;
  /** The auction's metrics, on an internal port of their own. */
  metricsUrl: string;
  db: Db;
  auction: Auction;
  publisherKey: string;
  publisherId: string;
  dspIds: Set<string>;
  close(): Promise<void>;
}

/** `publisher.reusePublisherKey` + `publisherId`: a second auction of the same publisher (as two copies of the service would be). */
export async function startAuction(
  overrides: Partial<AuctionDeps> = {},
  publisher: { tmaxMs?: number; test?: boolean; reusePublisherKey?: string; publisherId?: string } = {},
): Promise<AuctionHarness> {
  const db = createDb(undefined, 3);
  const clickhouse = createClickhouse();
  const dspIds = new Set<string>();
  const { reusePublisherKey, publisherId, ...options } = publisher;
  const { publisher_id, publisher_key } =
    reusePublisherKey && publisherId
      ? { publisher_id: publisherId, publisher_key: reusePublisherKey }
      : await createPublisher(db, { name: `Test host ${randomBytes(3).toString('hex')}`, domain: 'Chat.Example.COM', ...options });
  const auction = createAuction({ db, clickhouse, dspFilter: (d) => dspIds.has(d.id), ...overrides, settings: { logFlushMs: 200, ...overrides.settings } });
  await auction.start();
  const server: Server = await new Promise((resolve) => {
    const s = auction.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const metrics = await startMetricsServer(auction.deps.metrics.registry, { host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    metricsUrl: metrics.url,
    db,
    auction,
    publisherKey: publisher_key,
    publisherId: publisher_id,
    dspIds,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await metrics.close();
      await auction.close();
      await clickhouse.close();
      await db.$disconnect();
    },
  };
}

/** A reference DSP registered with this auction (native or OpenRTB), and known to its catalog. */
export async function addReferenceDsp(
  h: AuctionHarness,
  protocol: 'native' | 'openrtb',
  options: Partial<ReferenceDspOptions> = {},
  extra: { authStyle?: 'bearer' | 'url'; siteIdOverride?: string; publisherIdOverride?: string; tcfVendorId?: number; bidsWithoutConsent?: boolean } = {},
) {
  const key = `dspkey_${randomBytes(8).toString('hex')}`;
  const dsp: ReferenceDsp = await startReferenceDsp({ key, ...options });
  const bidUrl = protocol === 'native' ? `${dsp.url}/native/bid` : `${dsp.url}/openrtb${extra.authStyle === 'url' ? '?publisher_id=pub-123' : ''}`;
  const { dsp_id } = await addDsp(h.db, {
    name: `ref-${protocol}-${randomBytes(3).toString('hex')}`,
    protocol,
    bidUrl,
    renderUrl: protocol === 'native' ? `${dsp.url}/native/render` : undefined,
    key: extra.authStyle === 'url' ? undefined : key,
    authStyle: extra.authStyle,
    siteIdOverride: extra.siteIdOverride,
    publisherIdOverride: extra.publisherIdOverride,
    tcfVendorId: extra.tcfVendorId,
    bidsWithoutConsent: extra.bidsWithoutConsent,
  });
  h.dspIds.add(dsp_id);
  await until(() => h.auction.deps.catalog.dsps.some((d) => d.id === dsp_id), 'the DSP in the catalog');
  return { dsp, dspId: dsp_id, key };
}

/** An auction for the tests around the call (startAuction's arguments): filled in by beforeAll, closed by afterAll. */
export function useAuction(...options: Parameters<typeof startAuction>): AuctionHarness {
  const h = {} as AuctionHarness;
  beforeAll(async () => {
    Object.assign(h, await startAuction(...options));
  });
  afterAll(() => h.close());
  return h;
}

/** A reference DSP in auction `h` (useAuction's) for the tests around the call: filled in by beforeAll, removed and stopped by afterAll. */
export function useReferenceDsp(h: AuctionHarness, ...dsp: DropFirst<Parameters<typeof addReferenceDsp>>) {
  const ref = {} as Awaited<ReturnType<typeof addReferenceDsp>>;
  beforeAll(async () => {
    Object.assign(ref, await addReferenceDsp(h, ...dsp));
  });
  afterAll(() => dropReferenceDsp(h, ref));
  return ref;
}
type DropFirst<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

/** Removes a reference DSP from this auction and stops it. */
export async function dropReferenceDsp(h: AuctionHarness, { dsp, dspId }: { dsp: ReferenceDsp; dspId: string }) {
  await removeDsp(h, dspId);
  await dsp.close();
}

/** Removes a DSP from this auction (disables it in the database). */
export async function removeDsp(h: AuctionHarness, dspId: string) {
  await h.db.dsp.update({ where: { id: dspId }, data: { enabled: false } });
  h.dspIds.delete(dspId);
  await until(() => !h.auction.deps.catalog.dsps.some((d) => d.id === dspId), 'the DSP gone from the catalog');
}

let requestCounter = 0;
/**
 * A valid contextual request. Each gets a user and a conversation of its own
 * (frequency caps count per user and per conversation): pass `userId` and
 * `chatId` to send the same ones again.
 */
/** A browser's user agent: what a chat host forwards for its user (a bot's or an HTTP library's gets no auction). */
export const BROWSER_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

export function contextualRequest(overrides: Record<string, unknown> = {}) {
  requestCounter += 1;
  return {
    userId: `user-anon-${process.pid}-${requestCounter}`,
    chatId: `chat-${process.pid}-${requestCounter}`,
    nAdsBefore: 0,
    messages: [
      { role: 'user', content: 'Which shoes should I buy for my first marathon?' },
      { role: 'assistant', content: 'For marathon training, cushioned running shoes help.' },
    ],
    country_code: 'US',
    device: 'mobile',
    timezone: 'America/New_York',
    ip: '127.0.0.42',
    user_agent: BROWSER_UA,
    ...overrides,
  };
}

export async function adRequest(
  h: Pick<AuctionHarness, 'url' | 'publisherKey'>,
  body: unknown,
  token: string | null = h.publisherKey,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${h.url}/v1/ad_requests`, {
    method: 'POST',
    // As a chat host's server forwards its user's browser (Node's own user agent is on the bot list).
    headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

/** The bid rows the auction logged to ClickHouse for one auction (flushes the batch first). */
export async function loggedBids(h: AuctionHarness, auctionId: string): Promise<any[]> {
  await h.auction.deps.log.flush();
  const clickhouse = createClickhouse();
  try {
    const rs = await clickhouse.query({ query: sql`SELECT * FROM auction_bids WHERE auction_id = ${auctionId}`, format: 'JSONEachRow' });
    return await rs.json();
  } finally {
    await clickhouse.close();
  }
}
