import { plainPoolOf, utcTimestamp, type Db } from '../../lib/db';
import { pacingStep, type PacingState, type PacingStep } from './pacing';

/**
 * The pacing plan in PostgreSQL (`campaign_pacing`): one controller step for
 * every campaign that paces now (active, approved, live, in its flight, with an
 * end time), from the shared spend store; rows of campaigns that stopped or
 * ended are removed. `nowMs` is injected so tests and bench:pacing drive a
 * simulated clock; `campaignIds` narrows the step to those campaigns. A plan
 * observed after `nowMs` is left as it is: a step never goes back in time (a
 * worker whose clock lags another's, or the real clock beside a simulated one).
 */
export async function stepPacing(db: Db, nowMs: number, scope: { campaignIds?: string[] } = {}): Promise<number> {
  const now = new Date(nowMs);
  const readAt = new Date();
  const only = scope.campaignIds ? { id: { in: scope.campaignIds } } : {};
  const campaigns = await db.campaign.findMany({
    where: { ...only, status: 'active', reviewStatus: 'approved', lifecycleState: null, startTime: { lte: now }, endTime: { gt: now } },
    select: { id: true, startTime: true, endTime: true, lifetimeSpendLimitMicros: true, spend: { select: { spentMicros: true } } },
  });
  const ids = campaigns.map((c) => c.id);
  const states = new Map((await db.campaignPacing.findMany({ where: { campaignId: { in: ids } } })).map((p) => [p.campaignId, stateOf(p)]));
  const steps = campaigns
    .filter((c) => (states.get(c.id)?.observedAtMs ?? -Infinity) <= nowMs)
    .map((c) => ({
      campaignId: c.id,
      step: pacingStep(
        {
          startMs: c.startTime.getTime(),
          endMs: c.endTime!.getTime(),
          limitMicros: Number(c.lifetimeSpendLimitMicros),
          spentMicros: Number(c.spend?.spentMicros ?? 0n),
        },
        states.get(c.id) ?? null,
        nowMs,
      ),
    }));
  await db.$transaction([
    // Narrowed, the step removes only its own campaigns' plans; a plan written since the read is a concurrent step's (its campaign went live since).
    db.campaignPacing.deleteMany({
      where: { campaignId: { notIn: ids, ...(scope.campaignIds ? { in: scope.campaignIds } : {}) }, updatedAt: { lt: readAt } },
    }),
    ...steps.map(({ campaignId, step }) => upsert(db, campaignId, step)),
  ]);
  return steps.length;
}

/**
 * Writes a step unless a later one is already there: two steppers that read before either
 * wrote (two workers, or the real clock beside a simulated one) leave the latest observation.
 */
function upsert(db: Db, campaignId: string, step: PacingStep) {
  const observedAt = new Date(step.observedAtMs);
  return db.$executeRaw`
    INSERT INTO campaign_pacing (campaign_id, participation, full_rate_micros_per_second, observed_spent_micros, planned_spent_micros, observed_at, updated_at)
    VALUES (${campaignId}::uuid, ${step.participation}, ${step.fullRateMicrosPerSecond}, ${BigInt(step.observedSpentMicros)},
            ${BigInt(step.plannedSpentMicros)}, ${observedAt}, ${new Date()})
    ON CONFLICT (campaign_id) DO UPDATE SET
      participation = EXCLUDED.participation, full_rate_micros_per_second = EXCLUDED.full_rate_micros_per_second,
      observed_spent_micros = EXCLUDED.observed_spent_micros, planned_spent_micros = EXCLUDED.planned_spent_micros,
      observed_at = EXCLUDED.observed_at, updated_at = EXCLUDED.updated_at
    WHERE campaign_pacing.observed_at <= EXCLUDED.observed_at`;
}

type PacingRow = { participation: number; fullRateMicrosPerSecond: number | null; observedSpentMicros: bigint; observedAt: Date };
const stateOf = (p: PacingRow): PacingState => ({
  participation: p.participation,
  fullRateMicrosPerSecond: p.fullRateMicrosPerSecond,
  observedSpentMicros: Number(p.observedSpentMicros),
  observedAtMs: p.observedAt.getTime(),
});

/** A plan older than this is not applied (the controller stopped): the campaign spends as it wins until it runs again. */
export const PACING_STALE_MS = 60_000;

/**
 * Every fresh plan that holds a campaign back (participation < 1), for the auctions: each
 * auction process reads it every second on its event loop, so in plain SQL (lib/db.ts plainPoolOf).
 */
export async function loadParticipation(db: Db, nowMs = Date.now()): Promise<Map<string, number>> {
  const { rows } = await plainPoolOf(db).query<{ campaign_id: string; participation: number }>(
    `SELECT campaign_id::text, participation FROM campaign_pacing WHERE participation < 1 AND updated_at > $1::timestamp`,
    [utcTimestamp(nowMs - PACING_STALE_MS)],
  );
  return new Map(rows.map((r) => [r.campaign_id, r.participation]));
}

/** A campaign's fresh plan, as the delivery diagnostics show it (`paced`), or null when it does not pace. */
export async function freshPacingOf(db: Db, campaignId: string, nowMs = Date.now()) {
  const plan = await db.campaignPacing.findUnique({ where: { campaignId } });
  return plan && plan.updatedAt.getTime() > nowMs - PACING_STALE_MS ? plan : null;
}
