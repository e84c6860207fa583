/**
 * The chat host's backend side of the SDK (docs/sdk.md): it asks the auction for an ad
 * with the secret publisher key and hands the answer to the page, which renders it with
 * @chat-ads/sdk. The key stays on this server: the answer carries only signed tracking
 * URLs. No dependency beyond Node 18's fetch.
 */
import type { IncomingMessage } from 'node:http';

export interface Message {
  role: 'user' | 'assistant';
  content: string;
  timestamp?: string | number;
}

/** The chat-host ad request (DESIGN.md, Chat-host API): the spec's native bid request and our extras. */
export interface AdRequest {
  userId: string;
  request_type?: 'contextual' | 'opener';
  chatId?: string;
  nAdsBefore?: number;
  messages?: Message[];
  ad_formats?: ('sponsored_message' | 'sponsored_carousel' | 'poll')[];
  /** True when asked before the assistant's reply is shown (while it streams: send the reply so far). */
  prefetched?: boolean;
  request_id?: string;
  country_code: string;
  region?: string;
  city?: string;
  device: 'mobile' | 'desktop' | 'tablet';
  timezone: string;
  config?: { max_headline_chars?: number; image_enabled?: boolean };
  ip?: string;
  user_agent?: string;
  language?: string;
  site?: Record<string, unknown>;
  app?: Record<string, unknown>;
  tmax?: number;
}

/** The answer, passed to the page as is (`ad` null on no fill, with `no_fill_reason`). */
export interface AdAnswer {
  auction_id: string;
  ad: Record<string, unknown> | null;
  no_fill_reason?: string;
  test?: boolean;
  [field: string]: unknown;
}

/** The auction refused the request (`status`, and its `{ error: { message, type, param, code } }` body), or did not answer in time (`status` 0). */
export class AdRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'AdRequestError';
  }
}

export interface AdClientOptions {
  /** The auction service, e.g. http://127.0.0.1:3100 in development. */
  auctionUrl: string;
  /** The secret publisher key (`pk_...`, from `adctl publisher create`). */
  publisherKey: string;
  /** Gives up after this long (default 2500 ms: the auction's own deadline is 2000 ms at most). */
  timeoutMs?: number;
}

/** The user the ad is for: their browser's User-Agent and IP, which the view pixel and the click must come from. */
export interface Viewer {
  userAgent?: string;
  ip?: string;
}

/**
 * The viewer of an incoming page request: its User-Agent and the client address (the first
 * X-Forwarded-For hop only with `trustProxy`, when this server sits behind a proxy it trusts).
 */
export function viewerOf(req: IncomingMessage, { trustProxy = false }: { trustProxy?: boolean } = {}): Viewer {
  const forwarded = trustProxy
    ? String(req.headers['x-forwarded-for'] ?? '')
        .split(',')[0]
        .trim()
    : '';
  const ip = (forwarded || req.socket.remoteAddress || '').replace(/^::ffff:(?=\d+\.)/, '');
  const userAgent = req.headers['user-agent'];
  return { userAgent: userAgent || undefined, ip: ip || undefined };
}

export function createAdClient(options: AdClientOptions) {
  if (typeof (globalThis as { document?: unknown }).document !== 'undefined') {
    throw new Error('@chat-ads/node runs on the host’s server: the publisher key must never reach a browser');
  }
  if (!/^pk_/.test(options.publisherKey)) throw new Error('publisherKey must be a publisher key (pk_...)');
  const endpoint = `${options.auctionUrl.replace(/\/+$/, '')}/v1/ad_requests`;
  const timeoutMs = options.timeoutMs ?? 2500;
  return {
    /** Asks the auction for an ad for this conversation and viewer; throws AdRequestError when it refuses or is late. */
    async requestAd(request: AdRequest, viewer: Viewer = {}): Promise<AdAnswer> {
      const body = {
        ...request,
        ...(viewer.userAgent && !request.user_agent ? { user_agent: viewer.userAgent } : {}),
        ...(viewer.ip && !request.ip ? { ip: viewer.ip } : {}),
      };
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { Authorization: `Bearer ${options.publisherKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new AdRequestError(0, null, `the auction did not answer: ${(err as Error).message}`);
      }
      const answer: unknown = await res.json().catch(() => null);
      if (!res.ok) {
        const message = (answer as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${res.status}`;
        throw new AdRequestError(res.status, answer, `the auction refused the ad request: ${message}`);
      }
      return answer as AdAnswer;
    },
  };
}
