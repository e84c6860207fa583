/**
 * domain/serving/pacing-store.ts loadParticipation: what every auction process
 * reads each second. Only fresh plans that hold a campaign back are applied.
 */
import { loadParticipation, PACING_STALE_MS } from '../../domain/serving/pacing-store';
import { createDb } from '../../lib/db';
import { insertTree } from '../support/fixtures';
import { newOrg } from '../support/harness';

const db = createDb(undefined, 2);
afterAll(() => db.$disconnect());

test('fresh plans under full participation are read; stale ones and full participation are not', async () => {
  const org = await newOrg(db);
  const [held, stale, full] = await Promise.all([insertTree(db, org), insertTree(db, org), insertTree(db, org)]);
  const now = Date.now();
  const plan = (campaignId: string, participation: number, updatedAt: number) =>
    db.campaignPacing.create({
      data: { campaignId, participation, observedSpentMicros: 0n, plannedSpentMicros: 0n, observedAt: new Date(updatedAt), updatedAt: new Date(updatedAt) },
    });
  await plan(held.campaign.id, 0.25, now - 1_000);
  await plan(stale.campaign.id, 0.25, now - PACING_STALE_MS - 1_000);
  await plan(full.campaign.id, 1, now - 1_000);

  const read = await loadParticipation(db, now);
  expect(read.get(held.campaign.id)).toBe(0.25);
  expect(read.has(stale.campaign.id)).toBe(false);
  expect(read.has(full.campaign.id)).toBe(false);
});
