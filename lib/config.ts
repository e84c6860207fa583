/**
 * Every address and tunable the processes read, in one place. Each comes from
 * the environment, with local defaults matching scripts/bootstrap.sh so that a
 * fresh checkout runs with no configuration at all. In production the defaults
 * that would fail open (built-in database password, Stripe emulator, public
 * signing key) are refused instead: see `assertStartupConfig`.
 */
const isTest = process.env.NODE_ENV === 'test';
/** `npm start` runs with NODE_ENV=development, `npm test` with test: the only modes with built-in secrets. */
const DEVELOPMENT_MODES = ['development', 'test'];
/**
 * The tracking signing key written in this repository: anyone can mint a
 * tracking token with it, so it signs nothing outside development and tests.
 */
export const DEVELOPMENT_TRACKING_SECRET = 'development-only-tracking-key';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

function portsFromEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const ports = raw.split(',').map((part) => Number(part.trim()));
  if (ports.some((port) => !Number.isInteger(port) || port < 1 || port > 65_535)) {
    throw new Error(`${name} must be a comma-separated list of ports, got "${raw}"`);
  }
  return ports;
}

/**
 * Proxies in front of the api whose forwarding headers are believed: the first
 * `X-Forwarded-For` hop is an event's client address, and `X-Forwarded-Proto:
 * https` makes the dashboard cookie Secure. TRUSTED_PROXIES (comma-separated
 * IPs); EVENTS_TRUSTED_PROXIES, its earlier name, is read too.
 */
const trustedProxies = new Set(
  [process.env.TRUSTED_PROXIES, process.env.EVENTS_TRUSTED_PROXIES]
    .flatMap((list) => (list ?? '').split(','))
    .map((s) => s.trim())
    .filter(Boolean),
);

/** API_CREATION_WORKER: `on` (default) or `off`. */
function creationWorkerOn(env: NodeJS.ProcessEnv): boolean {
  const raw = env.API_CREATION_WORKER ?? 'on';
  if (raw !== 'on' && raw !== 'off') throw new Error(`API_CREATION_WORKER must be on or off, got "${raw}"`);
  return raw === 'on';
}

export const config = {
  isTest,
  trustedProxies,
  databaseUrl: process.env.DATABASE_URL ?? `postgresql://adplatform:adplatform@127.0.0.1:5432/${isTest ? 'adplatform_test' : 'adplatform'}`,
  clickhouse: {
    url: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123',
    database: process.env.CLICKHOUSE_DATABASE ?? (isTest ? 'adplatform_test' : 'adplatform'),
  },
  api: {
    host: process.env.HOST ?? '127.0.0.1',
    port: intFromEnv('PORT', 3000),
    /** Public base of this api, used to build asset URLs that image_url reads back. */
    publicUrl: process.env.PUBLIC_URL ?? `http://127.0.0.1:${intFromEnv('PORT', 3000)}`,
    /** Whether the api runs the campaign-creation saga itself, started eagerly (worker/creation-worker.ts): API_CREATION_WORKER=off leaves it to the worker. */
    creationWorker: creationWorkerOn(process.env),
  },
  auction: { port: intFromEnv('AUCTION_PORT', 3100) },
  /**
   * Each service's Prometheus metrics, on an internal port of its own (never the
   * public one): loopback unless METRICS_HOST says otherwise; port 0 = any free port.
   */
  metrics: {
    host: process.env.METRICS_HOST ?? '127.0.0.1',
    apiPort: intFromEnv('METRICS_PORT', 9464),
    auctionPort: intFromEnv('AUCTION_METRICS_PORT', 9465),
    workerPort: intFromEnv('WORKER_METRICS_PORT', 9466),
  },
  worker: {
    /** Nice value the worker lowers itself to (0 keeps the default): its work is background, the api's and auction's is not. */
    nice: intFromEnv('WORKER_NICE', 10),
  },
  assets: {
    dir: process.env.ASSET_DIR ?? `${process.env.ADPLATFORM_DATA_DIR ?? '/var/lib/adplatform'}/assets${isTest ? '-test' : ''}`,
    /** `local` (the folder above) or `s3` (any S3-compatible service, settings below). */
    store: process.env.ASSET_STORE || 'local',
    s3: {
      endpoint: process.env.S3_ENDPOINT,
      bucket: process.env.S3_BUCKET,
      region: process.env.S3_REGION || 'us-east-1',
      accessKeyId: process.env.S3_ACCESS_KEY_ID,
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY,
    },
  },
  imageFetch: {
    /**
     * Test-only: lets image_url downloads reach loopback test servers, on any
     * port. Takes effect only with NODE_ENV=test. Never set in production.
     */
    allowLoopback: process.env.IMAGE_FETCH_ALLOW_LOOPBACK === '1' && isTest,
    /** Test-only (the contract run): refuse every image URL that is not literally loopback, before any DNS lookup. */
    loopbackOnly: process.env.IMAGE_FETCH_LOOPBACK_ONLY === '1' && isTest,
    /** Ports an image_url may name (`IMAGE_FETCH_PORTS`, comma-separated); 80 and 443 by default. */
    allowedPorts: portsFromEnv('IMAGE_FETCH_PORTS', [80, 443]),
  },
  creativeGenerator: {
    /** An OpenAI-compatible chat-completions endpoint; unset = the built-in generator. */
    url: process.env.CREATIVE_GENERATOR_URL,
    apiKey: process.env.CREATIVE_GENERATOR_API_KEY,
    model: process.env.CREATIVE_GENERATOR_MODEL ?? 'gpt-4o-mini',
  },
  rateLimits: {
    perKeyPerHour: intFromEnv('RATE_LIMIT_PER_HOUR', 1000),
    campaignCreatesPerKeyPerHour: intFromEnv('RATE_LIMIT_CAMPAIGN_CREATES_PER_HOUR', 60),
    /** API-key mints (rotations) per organization per hour; creating the organization counts as one. */
    apiKeyMintsPerOrgPerHour: intFromEnv('RATE_LIMIT_API_KEY_MINTS_PER_HOUR', 10),
  },
  keyRotationGraceSeconds: 30 * 60,
  /**
   * Every outgoing call of the api has a bound (docs/api-behaviour.md, "Timeouts", lists them).
   * Image downloads have their own (domain/uploads/guarded-fetch.ts).
   */
  timeouts: {
    /** How long `POST /v1/campaigns` waits for its saga before answering 503 request_timeout. */
    campaignCreateMs: intFromEnv('CAMPAIGN_CREATE_TIMEOUT_MS', 25_000),
    /** Temporal: opening the connection, and each RPC without a deadline of its own. */
    temporalConnectMs: intFromEnv('TEMPORAL_CONNECT_TIMEOUT_MS', 10_000),
    temporalRpcMs: intFromEnv('TEMPORAL_RPC_TIMEOUT_MS', 10_000),
    /** Stripe: per request, and the SDK's retries of a network failure (same idempotency key). */
    stripeRequestMs: intFromEnv('STRIPE_TIMEOUT_MS', 10_000),
    stripeMaxNetworkRetries: intFromEnv('STRIPE_MAX_NETWORK_RETRIES', 1),
    /** One forwarded feedback call to a DSP's feedback_url (retried later with backoff). */
    dspCallbackMs: intFromEnv('DSP_CALLBACK_TIMEOUT_MS', 5_000),
    /** PostgreSQL: getting a pool connection; a statement (server side); a query (client side, covers a lost server). */
    pgConnectMs: intFromEnv('PG_CONNECT_TIMEOUT_MS', 5_000),
    pgStatementMs: intFromEnv('PG_STATEMENT_TIMEOUT_MS', 30_000),
    pgQueryMs: intFromEnv('PG_QUERY_TIMEOUT_MS', 35_000),
    /** PostgreSQL ends a session left idle inside a transaction (a crashed or cancelled client). */
    pgIdleInTransactionMs: intFromEnv('PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', 30_000),
    /** Prisma interactive transactions: waiting for a connection, and the whole transaction (Prisma's 2 s / 5 s defaults fail under load). */
    pgTransactionWaitMs: intFromEnv('PG_TRANSACTION_WAIT_MS', 10_000),
    pgTransactionMs: intFromEnv('PG_TRANSACTION_TIMEOUT_MS', 20_000),
    /** ClickHouse: one HTTP request. */
    clickhouseRequestMs: intFromEnv('CLICKHOUSE_REQUEST_TIMEOUT_MS', 30_000),
    /** Each step of a shutdown (background writes, pool end, Temporal connection, HTTP server). */
    closeMs: intFromEnv('CLOSE_TIMEOUT_MS', 5_000),
  },
  /**
   * Limits of the api's and the auction's HTTP servers (lib/http/server.ts): a client that is slow to
   * send its headers or its body, or idles on a kept-alive connection, lets go of its socket in bounded
   * time (docs/configuration.md). The auction keeps connections alive longer: chat hosts reuse them.
   */
  http: {
    /** Whole request (headers and body) received within this; past it Node answers 408 and closes. */
    requestTimeoutMs: intFromEnv('HTTP_REQUEST_TIMEOUT_MS', 60_000),
    /** Headers received within this (at most requestTimeoutMs). */
    headersTimeoutMs: intFromEnv('HTTP_HEADERS_TIMEOUT_MS', 20_000),
    /** An idle kept-alive connection is closed after this (per process). */
    keepAliveTimeoutMs: { api: intFromEnv('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000), auction: intFromEnv('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000) },
    /** Open connections per process; more are refused (closed at once). */
    maxConnections: intFromEnv('HTTP_MAX_CONNECTIONS', 2_000),
  },
  events: {
    /** Collected events per API key per hour (each event of a batch counts). */
    perKeyPerHour: intFromEnv('RATE_LIMIT_EVENTS_PER_HOUR', 1_000_000),
    /** Peers whose first X-Forwarded-For hop is taken as the client's ip_address: the trusted proxies above (one Set). */
    trustedProxies,
    /** Pipeline batch size (inbox rows per ClickHouse insert). */
    pipelineBatch: intFromEnv('EVENT_PIPELINE_BATCH', 10_000),
    /** How long an event_id is remembered for deduplication (then pruned; a later event with that id counts again). */
    dedupeWindowDays: intFromEnv('EVENT_DEDUPE_WINDOW_DAYS', 7),
    /** How long an accepted event may wait in the inbox for its batch to fill (the pipeline lag's main part). */
    pipelineGatherMs: intFromEnv('EVENT_PIPELINE_GATHER_MS', 1_000),
  },
  /** How long raw rows are kept (docs/api-behaviour.md, "Personal data and retention"); rollups are kept. */
  retention: {
    /** collected_events: IP addresses, user agents, page URLs. */
    eventsDays: intFromEnv('RAW_EVENTS_RETENTION_DAYS', 400),
    /** delivery_events and dsp_delivery_events: one row per impression and click (insights read rollups; conversions join these). */
    deliveriesDays: intFromEnv('RAW_DELIVERY_RETENTION_DAYS', 400),
    /** auctions and auction_bids: the auction log behind `adctl dsp report`. */
    auctionLogDays: intFromEnv('AUCTION_LOG_RETENTION_DAYS', 90),
    /** dead_letters (PostgreSQL): rows ClickHouse refused, which may hold personal data. */
    deadLettersDays: intFromEnv('DEAD_LETTER_RETENTION_DAYS', 30),
  },
  /** Publisher reports (GET {auction}/v1/reports, auction/reports/report.ts). */
  publisherReports: {
    /** Budget of each of a report's ClickHouse queries in whole seconds (max_execution_time); past it, 504 analytics_timeout. */
    queryTimeoutSeconds: intFromEnv('PUBLISHER_REPORT_QUERY_TIMEOUT_SECONDS', 10),
    /** Reports per publisher key per hour (sliding window, domain/rate-limits/sliding-window.ts); past it, 429. */
    perPublisherPerHour: intFromEnv('RATE_LIMIT_PUBLISHER_REPORTS_PER_HOUR', 600),
  },
  insights: {
    /** Budget of one report query in whole seconds (ClickHouse's max_execution_time); past it, 504 analytics_timeout. */
    queryTimeoutSeconds: intFromEnv('INSIGHTS_QUERY_TIMEOUT_SECONDS', 10),
  },
  delivery: {
    /**
     * Lifetime of a signed impression (view) URL: long enough for a prefetched
     * ad to be shown and counted, short enough that a token minted before a
     * pause cannot keep counting for days.
     */
    viewTokenTtlSeconds: intFromEnv('TRACKING_VIEW_TOKEN_TTL_SECONDS', 30 * 60),
    /** Lifetime of the click, feedback and poll URLs: a conversation may be scrolled back to for days. */
    clickTokenTtlSeconds: intFromEnv('TRACKING_CLICK_TOKEN_TTL_SECONDS', 7 * 86_400),
    /** How long a DSP impression waits for its auction's record in the auction log before it is exported with no revenue (domain/delivery/dsp-revenue.ts). */
    dspRevenueGraceSeconds: intFromEnv('DSP_REVENUE_RECORD_WAIT_SECONDS', 30),
    /** Invalid traffic: impressions a minute per publisher and user key or network beyond which they are a burst (domain/delivery/invalid-traffic.ts). */
    burst: {
      perUserPerMinute: intFromEnv('INVALID_TRAFFIC_BURST_PER_USER_PER_MINUTE', 30),
      perNetworkPerMinute: intFromEnv('INVALID_TRAFFIC_BURST_PER_NETWORK_PER_MINUTE', 600),
    },
    /** The per-publisher daily spend alarm (jobs/publisher-spend.ts): today's spend above `multiple` times the trailing 7-day average (once at least `minMicros`), or above `capMicros` (0: no cap). */
    spendAlarm: {
      multiple: intFromEnv('PUBLISHER_SPEND_ALARM_MULTIPLE', 3),
      minMicros: intFromEnv('PUBLISHER_SPEND_ALARM_MIN_MICROS', 10_000_000),
      capMicros: intFromEnv('PUBLISHER_SPEND_ALARM_CAP_MICROS', 0),
    },
    /** Ledger rows per ClickHouse export batch (jobs/delivery-exporter.ts). */
    exportBatch: intFromEnv('DELIVERY_EXPORT_BATCH', 5_000),
    /** Least time between the starts of two ledger flushes of one api process (lib/group-commit.ts): fuller, fewer flushes under load (bench/history.md, "tracking"). */
    ledgerFlushSpacingMs: intFromEnv('DELIVERY_LEDGER_FLUSH_SPACING_MS', 2),
    /** How long the worker's ledger export rests when nothing is waiting: about one ClickHouse insert a second (each feeds four rollups; small frequent inserts cost ClickHouse far more CPU). */
    exportIntervalMs: intFromEnv('DELIVERY_EXPORT_INTERVAL_MS', 1_000),
    /** Forwarded DSP feedback: attempts before giving up (exponential backoff from 1 s, capped at 10 min). */
    callbackMaxAttempts: intFromEnv('DSP_CALLBACK_MAX_ATTEMPTS', 10),
  },
  /** Delivery controls (docs/api-behaviour.md: pacing and frequency caps). */
  pacing: {
    /** How often the worker re-plans every paced campaign (jobs/pacing.ts). */
    intervalMs: intFromEnv('PACING_INTERVAL_MS', 2_000),
    /** How often each auction process reads the plan. */
    auctionRefreshMs: intFromEnv('AUCTION_PACING_REFRESH_MS', 1_000),
  },
  frequency: {
    /** Impressions of one campaign to one user of one publisher in any 24 hours (0: no cap). */
    perUserDay: intFromEnv('FREQUENCY_CAP_PER_USER_DAY', 3),
    /** Impressions of one campaign in one conversation (chatId) within the same 24 hours (0: no cap). */
    perConversation: intFromEnv('FREQUENCY_CAP_PER_CONVERSATION', 1),
    /** How long a won auction whose view pixel has not fired counts as an impression. */
    provisionalSeconds: intFromEnv('FREQUENCY_PROVISIONAL_SECONDS', 300),
    /** How often each auction process writes its wins and reads everyone's (ms). */
    syncMs: intFromEnv('FREQUENCY_SYNC_MS', 250),
  },
  dashboard: {
    /** How long an `adctl login-link` link may be redeemed (once). */
    loginLinkTtlSeconds: intFromEnv('DASHBOARD_LOGIN_LINK_TTL_SECONDS', 15 * 60),
    /** A browser session's lifetime (the cookie's Max-Age and the session row's expiry). */
    sessionTtlSeconds: intFromEnv('DASHBOARD_SESSION_TTL_SECONDS', 12 * 60 * 60),
  },
  signing: {
    /**
     * `kid:secret,...`, current key first (lib/signed-token.ts). The default is for
     * development and tests only: anywhere else TRACKING_SIGNING_KEYS must be set
     * (assertStartupConfig), and without it nothing is signed.
     */
    trackingKeys:
      process.env.TRACKING_SIGNING_KEYS ?? (DEVELOPMENT_MODES.includes(process.env.NODE_ENV ?? '') ? `dev1:${DEVELOPMENT_TRACKING_SECRET}` : undefined),
  },
};

/**
 * Variables each production process must be given: without them it would run on
 * a built-in default (the database password, the Stripe emulator that moves no
 * money, a signing key published in this repository). The api calls Stripe too when it
 * runs the creation saga (API_CREATION_WORKER, on by default): see productionRequiredEnv.
 */
export const PRODUCTION_REQUIRED_ENV = {
  api: ['DATABASE_URL', 'TRACKING_SIGNING_KEYS'],
  worker: ['DATABASE_URL', 'STRIPE_SECRET_KEY', 'TRACKING_SIGNING_KEYS'],
  auction: ['DATABASE_URL', 'TRACKING_SIGNING_KEYS'],
} as const;
export type ServiceName = keyof typeof PRODUCTION_REQUIRED_ENV;

/** What `service` needs in production under `env`: an api running the creation saga charges deposits, as the worker does. */
export function productionRequiredEnv(service: ServiceName, env: NodeJS.ProcessEnv = process.env): readonly string[] {
  if (service === 'api' && creationWorkerOn(env)) return [...PRODUCTION_REQUIRED_ENV.api, 'STRIPE_SECRET_KEY'];
  return PRODUCTION_REQUIRED_ENV[service];
}

/**
 * Fail closed. Each process (api, worker, auction) calls it first thing at start:
 * - with NODE_ENV=production, every variable above that the service uses must be set;
 * - unless NODE_ENV is development or test, TRACKING_SIGNING_KEYS must be set
 *   and must not hold the development secret published in this repository
 *   (with it, anyone could mint view tokens that charge budgets).
 * Throws naming what is wrong; development and tests keep their defaults.
 */
export function assertStartupConfig(service: ServiceName, env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_ENV === 'production') {
    const missing = productionRequiredEnv(service, env).filter((name) => !env[name]?.trim());
    if (missing.length) {
      throw new Error(`refusing to start with NODE_ENV=production: ${missing.join(', ')} must be set (no development defaults in production)`);
    }
  }
  if (DEVELOPMENT_MODES.includes(env.NODE_ENV ?? '')) return;
  const mode = `NODE_ENV=${env.NODE_ENV ?? '(unset)'}`;
  if (!env.TRACKING_SIGNING_KEYS?.trim()) {
    throw new Error(`refusing to start with ${mode}: TRACKING_SIGNING_KEYS must be set (only development and test have a built-in key)`);
  }
  if (env.TRACKING_SIGNING_KEYS.includes(DEVELOPMENT_TRACKING_SECRET)) {
    throw new Error(`refusing to start with ${mode}: TRACKING_SIGNING_KEYS holds the development key published in this repository`);
  }
}
