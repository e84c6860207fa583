/**
 * Prisma CLI configuration. Migrations run through the JavaScript schema engine
 * over the pg driver adapter, because the native engines cannot be downloaded
 * on our machines (see ../shared/notes/offline-setup.md).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { defineConfig } from 'prisma/config';
import { config } from './lib/config';

// `prisma generate` reads env("DATABASE_URL") even though it never connects.
process.env.DATABASE_URL ??= config.databaseUrl;

/**
 * Work-around for prisma/orm#27403: adapter-pg rejects the pg_catalog column
 * types `name` (oid 19) and `"char"` (oid 18) that the schema engine reads while
 * introspecting. Report them as `text` (oid 25); their values are text already.
 */
const CATALOG_TEXT_OIDS = new Set([18, 19]);
function reportCatalogTypesAsText<T>(result: T): T {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  for (const field of fields ?? []) if (CATALOG_TEXT_OIDS.has(field.dataTypeID)) field.dataTypeID = 25;
  return result;
}
class CatalogTextClient extends pg.Client {
  // pg.Pool calls query with a callback, adapter transactions with a promise: handle both.
  query(...args: any[]): any {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, res: unknown) => last(err, res && reportCatalogTypesAsText(res));
      return (super.query as any)(...args);
    }
    const result = (super.query as any)(...args);
    return result && typeof result.then === 'function' ? result.then(reportCatalogTypesAsText) : result;
  }
}

/** Discrete pool fields (not a connectionString) so the shadow database name can be swapped in. */
function poolConfig(database?: string): pg.PoolConfig {
  const url = new URL(process.env.DATABASE_URL!);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: database ?? url.pathname.slice(1),
    Client: CatalogTextClient,
  };
}

/**
 * Work-around for the shadow database of `migrate dev`: adapter-pg drops the
 * shadow database while its own pool still holds connections to it. Close the
 * shadow pool first, then drop the database.
 */
const migrationAdapter: SqlMigrationAwareDriverAdapterFactory = {
  provider: 'postgres',
  adapterName: '@prisma/adapter-pg',
  connect: () => new PrismaPg(poolConfig()).connect(),
  async connectToShadowDb() {
    const main = await new PrismaPg(poolConfig()).connect();
    const shadowName = `prisma_migrate_shadow_db_${randomUUID()}`;
    await main.executeScript(`CREATE DATABASE "${shadowName}"`);
    const shadow = await new PrismaPg(poolConfig(shadowName)).connect();
    const closeShadowPool = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await closeShadowPool();
      await main.executeScript(`DROP DATABASE IF EXISTS "${shadowName}"`);
      await main.dispose();
    };
    return shadow;
  },
};

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: async () => migrationAdapter,
});
