import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { config } from './config';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client';

/** A Prisma client over the pg driver adapter (no native engine; see notes). */
export function createDb(databaseUrl = config.databaseUrl, poolSize = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
}

/** P2002 is Prisma's unique-violation code (adapters give no `meta.target`). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'P2002';
}
