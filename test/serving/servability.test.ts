/**
 * Servability is one rule (domain/serving/eligibility.ts servingBlock) with one SQL twin
 * (`serving_block`, domain/serving/eligibility.sql) that both PostgreSQL-side deciders call: the
 * auction's index load and the charge. This runs the TypeScript rule and the function on the real
 * PostgreSQL over the same table of cases (every combination of the facts' values, each time on
 * and around the clock) and requires the same answer for each.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { createPgPool, utcTimestamp } from '../../lib/db';
import { servingBlock, type ServableFacts, type ServingBlock } from '../../domain/serving/eligibility';

let pool: Pool;
beforeAll(() => {
  pool = createPgPool();
});
afterAll(() => pool.end());

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const HOUR = 3_600_000;

/** Every combination of these values (the product), including the edges of the clock. */
function cases(): ServableFacts[] {
  const out: ServableFacts[] = [];
  for (const campaignStatus of ['active', 'paused', 'archived'])
    for (const reviewStatus of ['approved', 'in_review', 'rejected'])
      for (const lifecycleState of [null, 'completed', 'blocked'])
        for (const lifecycleReason of [null, 'ended', 'budget_exhausted'])
          for (const startTime of [NOW - HOUR, NOW, NOW + HOUR])
            for (const endTime of [null, NOW - HOUR, NOW, NOW + HOUR])
              for (const budgetExhausted of [false, true])
                for (const adGroupStatus of ['active', 'paused'])
                  for (const adStatus of ['active', 'paused'])
                    out.push({ campaignStatus, reviewStatus, lifecycleState, lifecycleReason, startTime, endTime, budgetExhausted, adGroupStatus, adStatus });
  return out;
}

async function sqlBlocks(facts: ServableFacts[], now: number): Promise<(ServingBlock | null)[]> {
  const column = <T>(pick: (f: ServableFacts) => T) => facts.map(pick);
  const { rows } = await pool.query<{ block: ServingBlock | null }>(
    `SELECT serving_block(cs, rs, ls, lr, st, et, be, gs, ads, $10::timestamp) AS block
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::timestamp[], $7::boolean[], $8::text[], $9::text[])
            WITH ORDINALITY AS x(cs, rs, ls, lr, st, et, be, gs, ads, ord)
      ORDER BY ord`,
    [
      column((f) => f.campaignStatus),
      column((f) => f.reviewStatus),
      column((f) => f.lifecycleState),
      column((f) => f.lifecycleReason ?? null),
      column((f) => utcTimestamp(f.startTime)),
      column((f) => (f.endTime === null ? null : utcTimestamp(f.endTime))),
      column((f) => f.budgetExhausted ?? false),
      column((f) => f.adGroupStatus),
      column((f) => f.adStatus),
      utcTimestamp(now),
    ],
  );
  return rows.map((r) => r.block);
}

test('serving_block answers as servingBlock for every case of the table', async () => {
  const table = cases();
  const expected = table.map((facts) => servingBlock(facts, NOW));
  // The table reaches every rule, and servable ads: it cannot agree by saying the same thing throughout.
  expect(new Set(expected)).toEqual(
    new Set([
      null,
      'blocked',
      'rejected',
      'not_approved',
      'archived',
      'campaign_paused',
      'ended',
      'budget_exhausted',
      'scheduled',
      'ad_group_paused',
      'ad_paused',
    ]),
  );
  const actual = await sqlBlocks(table, NOW);
  const differing = table.map((facts, i) => ({ facts, ts: expected[i], sql: actual[i] })).filter((c) => c.ts !== c.sql);
  expect(differing.slice(0, 5)).toEqual([]);
  expect(actual).toHaveLength(table.length);
});

test('a missing status or start time blocks (a row the joins did not find never serves)', async () => {
  const servable: ServableFacts = {
    campaignStatus: 'active',
    reviewStatus: 'approved',
    lifecycleState: null,
    startTime: NOW - HOUR,
    endTime: null,
    adGroupStatus: 'active',
    adStatus: 'active',
  };
  const { rows } = await pool.query<{
    none: string | null;
    campaign: string | null;
    review: string | null;
    grp: string | null;
    ad: string | null;
    start: string | null;
  }>(
    `SELECT serving_block('active', 'approved', NULL, NULL, $1::timestamp, NULL, false, 'active', 'active', $2::timestamp) AS none,
            serving_block(NULL, 'approved', NULL, NULL, $1::timestamp, NULL, false, 'active', 'active', $2::timestamp) AS campaign,
            serving_block('active', NULL, NULL, NULL, $1::timestamp, NULL, false, 'active', 'active', $2::timestamp) AS review,
            serving_block('active', 'approved', NULL, NULL, $1::timestamp, NULL, false, NULL, 'active', $2::timestamp) AS grp,
            serving_block('active', 'approved', NULL, NULL, $1::timestamp, NULL, false, 'active', NULL, $2::timestamp) AS ad,
            serving_block('active', 'approved', NULL, NULL, NULL, NULL, false, 'active', 'active', $2::timestamp) AS start`,
    [utcTimestamp(servable.startTime), utcTimestamp(NOW)],
  );
  expect(servingBlock(servable, NOW)).toBeNull();
  expect(rows[0]).toEqual({ none: null, campaign: 'campaign_paused', review: 'not_approved', grp: 'ad_group_paused', ad: 'ad_paused', start: 'scheduled' });
});

test('the charge and the index load decide servability with serving_block, not a copy of the rules', async () => {
  const { rows } = await pool.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE proname = 'record_deliveries'`);
  expect(rows).toHaveLength(1);
  expect(rows[0].prosrc).toContain('serving_block(');
  expect(rows[0].prosrc).not.toMatch(/review_status\s*=\s*'approved'/);
  const index = readFileSync(path.join(__dirname, '../../auction/inhouse/ad-index.ts'), 'utf8');
  expect(index).toContain('serving_block(');
  expect(index).not.toMatch(/review_status\s*=\s*'approved'/);
});
