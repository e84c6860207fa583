/**
 * What a test file needs to talk to the real system: an api instance of its own
 * (in-process, on a free loopback port) over the real PostgreSQL and Temporal,
 * and helpers to create organizations and send requests.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { apiProcessDeps, createApp } from '../../api/app';
import { startMetricsServer } from '../../lib/metrics-server';
import { createOrganization, type NewOrganization } from '../../domain/organizations/service';
import { closeDb, createDb, createPgPool, type Db } from '../../lib/db';
import { config } from '../../lib/config';
import { closeWithin } from '../../lib/deadline';
import { createTemporalClient } from '../../lib/temporal';
import { runUntilIdle, type Job } from '../../jobs/job';
import { createClickhouse } from '../../lib/clickhouse/client';

export interface Harness {
  url: string;
  /** The api's metrics, on an internal port of their own (GET it for Prometheus text). */
  metricsUrl: string;
  db: Db;
  /**
   * Runs a background job here until it has no more work (jobs/job.ts): the test
   * run's worker runs them too, so a test need not wait for its next turn.
   */
  runJob(job: Job): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(options: { onBudgetExhausted?: (campaignIds: string[]) => void } = {}): Promise<Harness> {
  const db = createDb(undefined, 5);
  const temporal = createTemporalClient();
  const { deps, metrics, delivery: ledger } = apiProcessDeps(db, temporal, options);
  const jobPool = createPgPool(undefined, 2);
  const jobClickhouse = createClickhouse();
  const jobDeps = { db, pool: jobPool, clickhouse: jobClickhouse, database: config.clickhouse.database, heartbeat: () => {} };
  const metricsServer = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0 });
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: metricsServer.url,
    db,
    runJob: (job) => runUntilIdle(job, jobDeps),
    /** Every step bounded; background writes (last_used) finish before the pool ends. */
    async close() {
      const ms = config.timeouts.closeMs;
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closeWithin(ms, 'http server close', () => closed);
      await metricsServer.close();
      await ledger.close();
      await jobPool.end();
      await jobClickhouse.close();
      await closeWithin(ms, 'temporal connection close', () => temporal.connection.close());
      await closeDb(db, ms);
    },
  };
}

/**
 * A harness for the tests around the call (the file's, or a describe block's):
 * started before them and closed after them, then each of `alsoClose` (clients
 * they share). Filled in by beforeAll: read it in tests and hooks only.
 */
export function useHarness(alsoClose: { close(): Promise<unknown> }[] = [], options: Parameters<typeof startHarness>[0] = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness(options));
  });
  afterAll(async () => {
    await h.close();
    for (const client of alsoClose) await client.close();
  });
  return h;
}

/**
 * useHarness with two fresh organizations: `org`, whose key `api` calls with,
 * and `other` (what `org` must not see). Filled in by beforeAll as well.
 */
export function useOrgs() {
  const h = useHarness();
  type Org = Awaited<ReturnType<typeof newOrg>>;
  const org = {} as Org;
  const other = {} as Org;
  beforeAll(async () => {
    const [first, second] = await Promise.all([newOrg(h.db), newOrg(h.db)]);
    Object.assign(org, first);
    Object.assign(other, second);
  });
  return {
    h,
    org,
    other,
    api: apiClient(
      () => h,
      () => org,
    ),
  };
}

let orgCounter = 0;
/** A fresh organization (default: with ad account and a card that succeeds). */
export function newOrg(db: Db, overrides: Partial<NewOrganization> = {}) {
  orgCounter += 1;
  return createOrganization(db, {
    name: `Test org ${process.pid}-${orgCounter}-${Date.now()}`,
    domain: 'example.com',
    paymentMethodId: 'pm_card_visa',
    withAdAccount: true,
    ...overrides,
  });
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Raw body, sent as is (for malformed JSON and content-type tests). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* keep the text: the test will say so */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/**
 * A test file's `api(method, path, body?, as?)`: a request to its harness with an
 * organization's API key (`as`, by default `org()`). Both are read per request,
 * so they may be set in beforeAll.
 */
export function apiClient(harness: () => Harness, org: () => { api_key: string }) {
  return <T = any>(method: string, path: string, body?: unknown, as = org()) => call<T>(harness().url, method, path, { token: as.api_key, body });
}

/** The spec's error object, for `expect(...).toEqual(errorBody(...))`. */
export function errorBody(code: string, type = 'invalid_request_error', param: string | null = null) {
  return { error: { message: expectAnyString(), type, param, code } };
}
const expectAnyString = () => expect.any(String) as unknown as string;
