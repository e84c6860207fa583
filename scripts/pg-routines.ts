/**
 * Applies the PostgreSQL routines (scripts/routines.ts lists them) after the Prisma
 * migrations: Prisma's driver-adapter migrator splits a script on every `;`,
 * which cuts a PL/pgSQL body apart, so routines are kept as "repeatable
 * migrations" instead (each file is CREATE OR REPLACE, re-applied on every
 * bootstrap, whole, in one transaction). Changing a routine's signature means
 * dropping the old one first in its file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { config } from '../lib/config';
import { ROUTINE_FILES } from './routines';

// The repository root, or dist/ when compiled (the build copies the files to the same paths).
const ROOT = path.join(__dirname, '..');

async function apply() {
  const client = new Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    for (const file of ROUTINE_FILES) {
      await client.query('BEGIN');
      // Two bootstraps at once would otherwise race on the same catalog rows.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('pg-routines'))`);
      await client.query(readFileSync(path.join(ROOT, file), 'utf8'));
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
