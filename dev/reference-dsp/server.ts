import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * A reference DSP speaking both protocols of spec 3: native bid
 * (POST /native/bid), render (POST /native/render) and OpenRTB 2.6
 * (POST /openrtb). Used by tests, the bench and `adctl dsp check`, and by
 * default in dev (`npx tsx dev/reference-dsp/main.ts`). Configurable latency,
 * price, no-bid rate, creative kind, and deliberate faults.
 */
export type CreativeKind = 'image' | 'text' | 'carousel' | 'render';
export type Fault =
  | 'none'
  | 'invalid_ad_data'
  | 'wrong_placement'
  | 'missing_placement'
  | 'slow'
  | 'http_500'
  | 'garbage_json'
  | 'expired_render'
  | 'bad_carousel'
  | 'insecure'
  | 'small_image'
  | 'missing_asset'
  | 'image_on_text_slot'
  | 'render_invalid';

export interface ReferenceDspOptions {
  latencyMs: number;
  /** CPM in USD. */
  price: number;
  noBidRate: number;
  creative: CreativeKind;
  fault: Fault;
  /** Bearer key the DSP expects (native, and OpenRTB bearer); null accepts any. */
  key: string | null;
  /** How long past the deadline `slow` answers (ms). */
  slowMs: number;
  /** Render-cache lifetime for bids (ms). */
  bidTtlMs: number;
  brand: string;
  /** OpenRTB: the bid's IAB categories (`cat`), if any (tests of the publisher's bcat). */
  categories?: string[];
  /** Scripted answer (tests of the SSP's validation): when it returns something, that is the answer, verbatim. */
  respond?: (path: string, body: any) => { status: number; body?: unknown } | undefined;
  /** Called once each answer is written, with how long this DSP held the request (the bench subtracts it). */
  onAnswered?: (path: string, body: any, heldMs: number) => void;
}

export const DEFAULT_OPTIONS: ReferenceDspOptions = {
  latencyMs: 0,
  price: 1.5,
  noBidRate: 0,
  creative: 'image',
  fault: 'none',
  key: null,
  slowMs: 5000,
  bidTtlMs: 60_000,
  brand: 'Reference Shoes',
};

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface ReferenceDsp {
  url: string;
  options: ReferenceDspOptions;
  set(options: Partial<ReferenceDspOptions>): void;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const IMG = 'https://cdn.reference-dsp.example/hero.jpg';
const LOGO = 'https://cdn.reference-dsp.example/logo.png';

function messageCreative(o: ReferenceDspOptions, placement: 'image' | 'text', headlineMax: number) {
  const creative: Record<string, unknown> = {
    ad_format: 'sponsored_message',
    placement,
    headline: 'Run your best race'.slice(0, headlineMax),
    description: 'Light trainers for every distance',
    url: 'https://click.reference-dsp.example/c?id=1',
    advertiser: o.brand,
    cta_text: 'Shop now',
    view_url: 'https://track.reference-dsp.example/v?id=1',
    feedback_url: 'https://track.reference-dsp.example/f?id=1',
  };
  if (placement === 'image') creative.image_url = IMG;
  else creative.logo_url = LOGO;
  return creative;
}

function carousel(o: ReferenceDspOptions) {
  return {
    ad_format: 'sponsored_carousel',
    advertiser: o.brand,
    items: [1, 2, 3].map((i) => ({
      headline: `Model ${i}`,
      image_url: `https://cdn.reference-dsp.example/${i}.jpg`,
      url: `https://click.reference-dsp.example/c?tile=${i}`,
    })),
    view_url: 'https://track.reference-dsp.example/v?carousel=1',
  };
}

/** The creative for this request, with the configured fault applied. */
function creativeFor(o: ReferenceDspOptions, body: any): Record<string, unknown> {
  const formats: string[] = body?.ad_formats ?? ['sponsored_message'];
  const imageEnabled = body?.config?.image_enabled !== false;
  const max = body?.config?.max_headline_chars ?? 100;
  let c: Record<string, unknown>;
  if ((o.creative === 'carousel' || o.fault === 'bad_carousel') && formats.includes('sponsored_carousel')) c = carousel(o);
  else c = messageCreative(o, o.creative === 'text' || !imageEnabled ? 'text' : 'image', max);
  switch (o.fault) {
    case 'invalid_ad_data':
      c.surprise_field = true;
      break;
    case 'wrong_placement':
      if (c.placement === 'image') {
        delete c.image_url;
      } else {
        delete c.logo_url;
      }
      break;
    case 'missing_placement':
      delete c.placement;
      break;
    case 'bad_carousel':
      (c.items as unknown[])?.pop();
      break;
    default:
      break;
  }
  return c;
}

function nativeAdm(o: ReferenceDspOptions, tagid: string, titleLen: number) {
  const text = tagid.endsWith('_text_v1') || o.creative === 'text';
  const https = o.fault === 'insecure' ? 'http' : 'https';
  const assets: any[] = [
    { id: 1, title: { text: 'Run your best race'.slice(0, titleLen) } },
    { id: 2, data: { value: 'Light trainers for every distance' } },
    { id: 3, data: { value: o.brand } },
    { id: 6, data: { value: 'Shop now' } },
  ];
  if (!text || o.fault === 'image_on_text_slot')
    assets.push({
      id: 4,
      img: { url: `${https}://cdn.reference-dsp.example/hero.jpg`, w: o.fault === 'small_image' ? 200 : 1200, h: o.fault === 'small_image' ? 200 : 628 },
    });
  if (text && o.fault !== 'image_on_text_slot') assets.push({ id: 5, img: { url: `${https}://cdn.reference-dsp.example/logo.png`, w: 200, h: 200 } });
  if (o.fault === 'missing_asset')
    assets.splice(
      assets.findIndex((a) => a.id === 3),
      1,
    );
  return JSON.stringify({
    native: {
      ver: '1.2',
      assets,
      link: { url: `${https}://click.reference-dsp.example/c?id=1` },
      eventtrackers: [{ event: 1, method: 1, url: `${https}://track.reference-dsp.example/v?id=1` }],
    },
  });
}

function send(res: http.ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An OpenRTB answer: one bid for the first impression, its native markup sized to the request's title length. */
function openrtbBid(o: ReferenceDspOptions, body: any) {
  const imp = body?.imp?.[0];
  let titleLen = 90;
  try {
    titleLen = JSON.parse(imp.native.request).assets.find((a: any) => a.id === 1).title.len;
  } catch {
    /* default */
  }
  return {
    id: body?.id,
    cur: 'USD',
    seatbid: [
      {
        seat: 'reference',
        bid: [
          {
            id: randomUUID(),
            impid: '1',
            price: o.price,
            adm: nativeAdm(o, imp?.tagid ?? '', titleLen),
            adomain: ['reference-shoes.example'],
            ...(o.categories ? { cat: o.categories } : {}),
          },
        ],
      },
    ],
  };
}

export function startReferenceDsp(initial: Partial<ReferenceDspOptions> = {}, port = 0, host = '127.0.0.1'): Promise<ReferenceDsp> {
  const options: ReferenceDspOptions = { ...DEFAULT_OPTIONS, ...initial };
  const received: ReceivedRequest[] = [];
  const bids = new Map<string, { expiresAt: number; creative: Record<string, unknown> }>();

  const server = http.createServer((req, res) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const answer = async () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        return send(res, 400, { error: 'body is not JSON' });
      }
      const path = (req.url ?? '').split('?')[0];
      if (received.length < 10_000) received.push({ path, headers: req.headers, body });
      const o = options;
      if (o.onAnswered) res.once('finish', () => o.onAnswered?.(path, body, performance.now() - arrived));
      if (o.latencyMs > 0) await sleep(o.latencyMs);
      const scripted = o.respond?.(path, body);
      if (scripted) return send(res, scripted.status, scripted.body);
      if (path === '/native/render') {
        const entry = typeof body?.bidId === 'string' ? bids.get(body.bidId) : undefined;
        if (o.fault === 'expired_render' || !entry || entry.expiresAt <= Date.now()) return send(res, 404, { error: 'bid not found or expired' });
        bids.delete(body.bidId);
        if (typeof body.realizedPrice !== 'number') return send(res, 400, { error: 'realizedPrice is required' });
        return send(res, 200, { data: o.fault === 'render_invalid' ? { ...entry.creative, extra: 1 } : entry.creative });
      }
      const auth = req.headers.authorization;
      if (o.key !== null && (path === '/native/bid' || (path === '/openrtb' && auth !== undefined)) && auth !== `Bearer ${o.key}`) {
        return send(res, 401, { error: 'bad key' });
      }
      if (o.fault === 'slow') await sleep(o.slowMs);
      if (o.fault === 'http_500') return send(res, 500, { error: 'deliberate failure' });
      if (o.fault === 'garbage_json') return send(res, 200, '{"data": {"bid": 1.2, "bidId": ');
      const noBid = o.noBidRate > 0 && Math.random() < o.noBidRate;
      if (path === '/native/bid') {
        if (noBid) return send(res, 200, { data: {} });
        const bidId = randomUUID();
        const creative = creativeFor(o, body);
        if (o.creative === 'render' || o.fault === 'expired_render' || o.fault === 'render_invalid') {
          bids.set(bidId, { expiresAt: Date.now() + o.bidTtlMs, creative });
          return send(res, 200, { requestId: body?.request_id, data: { bid: o.price, bidId } });
        }
        return send(res, 200, { status: 'ok', data: { bid: o.price, bidId, ad_data: creative } });
      }
      if (path === '/openrtb') {
        if (req.headers['x-openrtb-version'] !== '2.6') return send(res, 400, { error: 'unsupported OpenRTB version' });
        if (noBid) return send(res, 204);
        return send(res, 200, openrtbBid(o, body));
      }
      return send(res, 404, { error: 'not found' });
    };
    req.on('end', () => {
      answer().catch((err: unknown) => send(res, 500, { error: (err as Error).message }));
    });
  });
  server.keepAliveTimeout = 65_000;

  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${bound}`,
        options,
        received,
        set(update) {
          Object.assign(options, update);
        },
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}
