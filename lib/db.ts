import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type PoolClient } from 'pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client';
import { config } from './config';
import { closeWithin } from './deadline';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client';

/**
 * A Prisma client over the pg driver adapter (no native engine; see notes).
 * Every wait on PostgreSQL is bounded (config.timeouts.pg*): a pool connection,
 * a statement, a query seen from the client, and a session left idle inside a
 * transaction, which the server ends so a pool's end() can never wait on it.
 */
export function createDb(databaseUrl = config.databaseUrl, poolSize = 10): Db {
  const t = config.timeouts;
  const db = new PrismaClient({
    transactionOptions: { maxWait: t.pgTransactionWaitMs, timeout: t.pgTransactionMs },
    adapter: new PrismaPg({
      connectionString: databaseUrl,
      max: poolSize,
      connectionTimeoutMillis: t.pgConnectMs,
      statement_timeout: t.pgStatementMs,
      query_timeout: t.pgQueryMs,
      idle_in_transaction_session_timeout: t.pgIdleInTransactionMs,
    }),
  });
  databaseUrls.set(db, databaseUrl);
  return db;
}

const databaseUrls = new WeakMap<Db, string>();
const plainPools = new WeakMap<Db, Pool>();

/**
 * The plain `pg` pool beside `db`, on the same database: for the statements on
 * the hot paths (the API key's lookup and the rate-limit counters of every
 * request, the campaign-creation saga's writes). Prisma's query compiler costs
 * several times the CPU these statements take (bench/history.md, campaign-create).
 * Made on first use; closeDb ends it.
 */
export function plainPoolOf(db: Db): Pool {
  let pool = plainPools.get(db);
  if (!pool) plainPools.set(db, (pool = createPgPool(databaseUrls.get(db), 4)));
  return pool;
}

/**
 * A plain `pg` pool for hot paths that skip Prisma (group commits: Prisma's
 * per-query overhead would cap their flush rate), with the same bounds.
 */
export function createPgPool(databaseUrl = config.databaseUrl, max = 4): Pool {
  const t = config.timeouts;
  return new Pool({
    connectionString: databaseUrl,
    max,
    allowExitOnIdle: true,
    connectionTimeoutMillis: t.pgConnectMs,
    statement_timeout: t.pgStatementMs,
    query_timeout: t.pgQueryMs,
    idle_in_transaction_session_timeout: t.pgIdleInTransactionMs,
  });
}

/** A unique violation: Prisma's P2002 (adapters give no `meta.target`), or PostgreSQL's 23505 through a plain `pg` connection. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'P2002' || code === '23505';
}

/**
 * Writes a request does not wait for (e.g. an API key's last_used). They are
 * tracked per client so that closing it first lets them finish: a write still
 * in flight when the pool ends is what left sessions "idle in transaction" and
 * made `$disconnect()` hang.
 */
const backgroundWrites = new WeakMap<Db, Set<Promise<void>>>();

/** Runs `write` without the caller waiting; a failure is logged (`label`), never thrown. */
export function writeInBackground(db: Db, label: string, write: () => Promise<unknown>): void {
  let pending = backgroundWrites.get(db);
  if (!pending) backgroundWrites.set(db, (pending = new Set()));
  const tracked: Promise<void> = Promise.resolve()
    .then(write)
    .then(
      () => undefined,
      (err: Error) => console.error(`${label} failed: ${err.message}`),
    )
    .finally(() => pending.delete(tracked));
  pending.add(tracked);
}

/** Resolves once every background write started so far has settled. */
export async function settleBackgroundWrites(db: Db): Promise<void> {
  const pending = backgroundWrites.get(db);
  while (pending && pending.size > 0) await Promise.allSettled([...pending]);
}

/** Awaits the background writes, then disconnects; each step bounded by `ms`. */
export async function closeDb(db: Db, ms = config.timeouts.closeMs): Promise<void> {
  await closeWithin(ms, 'background writes', () => settleBackgroundWrites(db));
  await closeWithin(ms, 'database disconnect', () => db.$disconnect());
  const pool = plainPools.get(db);
  plainPools.delete(db);
  if (pool) await closeWithin(ms, 'plain pool end', () => pool.end());
}

/** A plain-pg parameter for a `timestamp` column (no zone): the columns hold UTC, as Prisma writes them. */
export const utcTimestamp = (time: number | Date): string => new Date(time).toISOString().replace('Z', '');

/** Whatever runs a raw statement: a Prisma client or transaction, or a `pg` pool or client. */
export type SqlExecutor = Db | Prisma.TransactionClient | { query(text: string, values?: unknown[]): Promise<unknown> };

/** Runs one raw statement (`$1`-style parameters) on either kind of executor. */
export async function executeSql(executor: SqlExecutor, text: string, values: unknown[]): Promise<void> {
  if ('$executeRawUnsafe' in executor) await executor.$executeRawUnsafe(text, ...values);
  else await executor.query(text, values);
}

/** Takes a transaction-scoped advisory lock named by `key` (held to commit or rollback), on either kind of executor. */
export async function lockForTransaction(executor: SqlExecutor, key: string): Promise<void> {
  await executeSql(executor, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/**
 * Runs `work` on a pooled connection that holds the session advisory lock `key`, or answers
 * `locked: false` at once when another session holds it (one writer at a time: the others skip
 * their turn). After a failure the connection is closed, not pooled: should it still hold the
 * lock, closing releases it.
 */
export async function withSessionLock<T>(
  pool: Pool,
  key: number,
  work: (client: PoolClient) => Promise<T>,
): Promise<{ locked: true; value: T } | { locked: false }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (!rows[0].locked) return { locked: false };
    try {
      return { locked: true, value: await work(client) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]).catch((err: Error) => (broken = err));
    }
  } catch (err) {
    broken ??= err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Runs `work` in one transaction on `client`, rolling back when it throws. */
export async function inClientTransaction<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Runs `work` in one transaction on a connection of a plain `pg` pool (hot paths that skip Prisma). */
export async function inPgTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await inClientTransaction(client, () => work(client));
  } finally {
    client.release();
  }
}
