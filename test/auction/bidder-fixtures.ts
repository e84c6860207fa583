/**
 * Bidder fixtures, as Prebid Server tests its adapters
 * (adapters/<name>/<name>test/exemplary/*.json): one JSON file per case under
 * test/fixtures/bidders/<protocol>/, run by bidder-fixtures.unit.test.ts with no
 * reference DSP and no service. A fixture holds
 *  - `adRequest`: the chat host's body, parsed by the auction's own schema;
 *  - `auction` (optional): the platform floor (`floorMicros`), the auction id
 *    (default `fixture-auction-1`), `publisher` fields over a plain publisher,
 *    `signals` (what auction/signals.ts would have found);
 *  - `dsp` (optional): fields over a plain DSP of the folder's protocol;
 *  - `httpCalls`: each call the bidder makes, in order: `expectedRequest`
 *    (`uri`, the headers it must carry, and the whole JSON `body`, where given)
 *    and the DSP's `mockResponse` (`status`, `body`: JSON, or a string sent as
 *    it is, or absent for an empty body);
 *  - `expectedBid`: the bid that would serve (`bidId`, `priceMicros`,
 *    `creative`), or null;
 *  - `expectedNonBids`: every record of a bid that did not make it (`reason`,
 *    `detail`), from the plan, the validation, the floor and the render.
 * The calls go to a loopback server that answers from the fixture. The stages
 * are the auction's own (plan, call, validate with the floor and the blocks,
 * render), so a fixture pins what the pipeline would do with that DSP's answer.
 * In an OpenRTB body, `imp[].native.request` (a JSON string on the wire) is
 * written and compared parsed; `{{schainAsi}}` stands for this machine's
 * supply-chain host (AUCTION_SCHAIN_ASI).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { DspConfig } from '../../domain/dsps';
import { publisherWithDefaults, type PublisherRecord } from '../../domain/publishers';
import { BidCache } from '../../auction/bid-cache';
import { dspBidder } from '../../auction/bidders';
import { DspHealth } from '../../auction/dsp/health';
import { adRequestSchema } from '../../auction/request-schema';
import { auctionSettings } from '../../auction/settings';
import { intake } from '../../auction/stages/1-intake';
import { planBidders } from '../../auction/stages/2-bidder-requests';
import { callBidders } from '../../auction/stages/3-call-bidders';
import { validateBids } from '../../auction/stages/4-validate-bids';
import { renderWinner } from '../../auction/stages/6-render';
import type { AuctionContext, BidRecord, Creative } from '../../auction/types';

export const FIXTURES = path.join(__dirname, '../fixtures/bidders');

export interface HttpCall {
  expectedRequest: { uri: string; headers?: Record<string, string>; body?: unknown };
  mockResponse: { status: number; body?: unknown };
}

export interface BidderFixture {
  description: string;
  adRequest: Record<string, unknown>;
  auction?: {
    floorMicros?: number;
    auctionId?: string;
    publisher?: Partial<Omit<PublisherRecord, 'blockedAdvertisers'>> & { blockedAdvertisers?: string[] };
    signals?: AuctionContext['signals'];
  };
  dsp?: Partial<DspConfig>;
  httpCalls: HttpCall[];
  expectedBid: { bidId: string; priceMicros: number; creative: Creative } | null;
  expectedNonBids: { reason: string; detail: string }[];
}

export interface ReceivedRequest {
  method: string;
  uri: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** Every fixture file, as [protocol/name, fixture]. */
export function loadFixtures(): [string, 'native' | 'openrtb', BidderFixture][] {
  return (['native', 'openrtb'] as const).flatMap((protocol) =>
    readdirSync(path.join(FIXTURES, protocol))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f): [string, 'native' | 'openrtb', BidderFixture] => [
        `${protocol}/${f}`,
        protocol,
        JSON.parse(readFileSync(path.join(FIXTURES, protocol, f), 'utf8')) as BidderFixture,
      ]),
  );
}

const PUBLISHER = publisherWithDefaults({ id: 'pub-internal-1', publicId: 'pub_fixture', name: 'Fixture Chat', domain: 'chat.example' });

/** A received body as fixtures write it: JSON parsed, an OpenRTB native request parsed too. */
function readable(raw: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return raw;
  }
  const imps = (body as { imp?: { native?: { request?: unknown } }[] }).imp;
  for (const imp of Array.isArray(imps) ? imps : [])
    if (typeof imp.native?.request === 'string') imp.native.request = JSON.parse(imp.native.request) as unknown;
  return body;
}

/** A fixture's expected values with this machine's placeholders filled in. */
export function filled<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('{{schainAsi}}', auctionSettings.schainAsi)) as T;
}

/** One fixture through the auction's stages against a loopback server that answers as the fixture says. */
export async function runFixture(protocol: 'native' | 'openrtb', fixture: BidderFixture) {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', uri: req.url ?? '', headers: req.headers, body: readable(Buffer.concat(chunks).toString('utf8')) });
      const mock = fixture.httpCalls[received.length - 1]?.mockResponse ?? { status: 599, body: 'a call the fixture does not expect' };
      const body = mock.body === undefined ? '' : typeof mock.body === 'string' ? mock.body : JSON.stringify(mock.body);
      res.writeHead(mock.status, body ? { 'content-type': 'application/json' } : {}).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cache = new BidCache(auctionSettings.bidCacheTtlMs);
  try {
    const dsp: DspConfig = {
      id: 'dsp-fixture',
      name: 'Fixture DSP',
      protocol,
      bidUrl: `${base}/bid`,
      renderUrl: protocol === 'native' ? `${base}/render` : null,
      apiKey: 'dsp-key-1',
      authStyle: 'bearer',
      siteIdOverride: null,
      publisherIdOverride: null,
      tcfVendorId: null,
      bidsWithoutConsent: true,
      ...fixture.dsp,
    };
    const { blockedAdvertisers, ...publisherFields } = fixture.auction?.publisher ?? {};
    const publisher = { ...PUBLISHER, ...publisherFields, blockedAdvertisers: new Set(blockedAdvertisers ?? []) };
    const caller = { socket: { remoteAddress: '127.0.0.1' }, headers: {} } as unknown as IncomingMessage;
    const ctx = intake(caller, adRequestSchema.parse(fixture.adRequest), publisher, fixture.auction?.floorMicros ?? 0);
    ctx.auctionId = fixture.auction?.auctionId ?? 'fixture-auction-1';
    ctx.signals = fixture.auction?.signals;
    const bidder = dspBidder(dsp, auctionSettings);
    const health = new DspHealth({ afterFailures: 5, baseMs: 1000, maxMs: 1000 });
    const { calls, skipped } = planBidders(ctx, [bidder], health, auctionSettings);
    const answers = await callBidders(ctx, calls, auctionSettings.fanOutConcurrency);
    const { valid, records } = validateBids(ctx, answers, cache);
    const ranked = [...valid].sort((a, b) => b.priceMicros - a.priceMicros);
    const { winner, failed } = await renderWinner(ctx, ranked, () => bidder, cache, auctionSettings);
    const nonBids = [...skipped, ...records, ...failed].map((r: BidRecord) => ({ reason: r.reason, detail: r.detail }));
    return {
      received,
      bid: winner && { bidId: winner.bidId, priceMicros: winner.priceMicros, creative: winner.creative },
      nonBids,
    };
  } finally {
    cache.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
