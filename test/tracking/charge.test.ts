/**
 * The charge's TypeScript (domain/delivery/charge.ts) and its SQL (domain/delivery/charge.sql,
 * `record_deliveries`) pinned together on the real PostgreSQL: the parameters the TypeScript
 * passes, in order, are the function's; the routines installed are the files beside the code
 * (one of each, no stale overload left by a signature change).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { createPgPool } from '../../lib/db';
import { RECORD_DELIVERIES_PARAMETERS } from '../../domain/delivery/charge';
import { ROUTINE_FILES } from '../../scripts/routines';

let pool: Pool;
beforeAll(() => {
  pool = createPgPool();
});
afterAll(() => pool.end());

const root = path.join(__dirname, '../..');

test("the parameters charge.ts passes are record_deliveries' own, in order and type", async () => {
  // Its input parameters (mode i), as `name type`, in the order a call passes them.
  const installed = await pool.query<{ args: string }>(
    `SELECT string_agg(a.name || ' ' || format_type(a.type, NULL), ', ' ORDER BY a.n) AS args
       FROM pg_proc p, unnest(p.proallargtypes, p.proargnames, p.proargmodes) WITH ORDINALITY AS a(type, name, mode, n)
      WHERE p.proname = 'record_deliveries' AND a.mode = 'i'
      GROUP BY p.oid`,
  );
  expect(installed.rows).toHaveLength(1);
  // The TypeScript's types spelled as PostgreSQL spells them (timestamp[] -> timestamp without time zone[]).
  const { rows } = await pool.query<{ spelled: string[] }>(
    `SELECT array_agg(t::regtype::text ORDER BY n) AS spelled FROM unnest($1::text[]) WITH ORDINALITY AS x(t, n)`,
    [RECORD_DELIVERIES_PARAMETERS.map((p) => p.type)],
  );
  expect(installed.rows[0].args).toBe(RECORD_DELIVERIES_PARAMETERS.map((p, i) => `${p.name} ${rows[0].spelled[i]}`).join(', '));
});

test.each(ROUTINE_FILES.map((file) => [file]))('%s is what PostgreSQL runs', async (file) => {
  const text = readFileSync(path.join(root, file), 'utf8');
  const name = /CREATE OR REPLACE FUNCTION (\w+)\(/.exec(text)?.[1];
  const body = /\bAS \$\$([\s\S]*)\$\$;\s*$/.exec(text)?.[1];
  expect(name && body).toBeTruthy();
  const { rows } = await pool.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE proname = $1`, [name]);
  expect(rows.map((r) => r.prosrc)).toEqual([body]);
});

test('the charge is findable by name beside the ledger: its TypeScript calls the function its SQL defines', () => {
  const ts = readFileSync(path.join(root, 'domain/delivery/charge.ts'), 'utf8');
  const sql = readFileSync(path.join(root, 'domain/delivery/charge.sql'), 'utf8');
  expect(ts).toContain('FROM record_deliveries(');
  expect(sql).toMatch(/CREATE OR REPLACE FUNCTION record_deliveries\(/);
});
