/**
 * Applies PostgreSQL routines (prisma/routines/*.sql) after the Prisma
 * migrations: Prisma's driver-adapter migrator splits a script on every `;`,
 * which cuts a PL/pgSQL body apart, so routines are kept as "repeatable
 * migrations" instead (each file is CREATE OR REPLACE, re-applied on every
 * bootstrap, whole, in one transaction). Changing a routine's signature means
 * dropping the old one first in its file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { config } from '../lib/config';

const DIR = path.join(__dirname, '..', 'prisma', 'routines');

async function apply() {
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    for (const file of readdirSync(DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      await client.query('BEGIN');
      // Two bootstraps at once would otherwise race on the same catalog rows.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('pg-routines'))`);
      await client.query(readFileSync(path.join(DIR, file), 'utf8'));
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

apply().catch((err) => {
  console.error(`postgres routines failed: ${err.message}`);
  process.exit(1);
});
