/**
 * Even pacing of a campaign with an end time: spend follows a straight line
 * from `start_time` to `end_time` over the lifetime budget. Each step of the
 * controller (jobs/pacing.ts) sets the share of eligible ad requests the
 * in-house bidder bids on (`participation`, drawn at random per request, so
 * every hour and every publisher still sees the campaign):
 *  - the target rate is the re-planned line (what is left of the budget over
 *    what is left of the flight) plus the gap to the plan closed over a short
 *    horizon, so the spend comes back to the line rather than drifting from it;
 *  - the campaign's spend rate at full participation is estimated from the
 *    spend observed in the last step divided by the participation it ran at
 *    (smoothed), so the step needs no traffic forecast;
 *  - behind plan by more than BEHIND_TOLERANCE it bids on everything; ahead,
 *    on target / full rate of the requests (never below MIN_PARTICIPATION, so
 *    the estimate keeps being fed).
 * Pure arithmetic over one campaign's state: the same inputs give the same
 * plan in any process (several auctions read one stored plan).
 */

/** What the controller knows of a campaign: its flight, budget and spend, in ms and micros. */
export interface PacedCampaign {
  startMs: number;
  endMs: number;
  limitMicros: number;
  spentMicros: number;
}

/** The controller's state between steps (stored per campaign: campaign_pacing). */
export interface PacingState {
  participation: number;
  /** Estimated spend per second at participation 1; null until observed. */
  fullRateMicrosPerSecond: number | null;
  observedSpentMicros: number;
  observedAtMs: number;
}

export interface PacingStep extends PacingState {
  plannedSpentMicros: number;
}

export const MIN_PARTICIPATION = 0.002;
/** Behind plan by more than this share of the planned spend: bid on everything. */
export const BEHIND_TOLERANCE = 0.02;
/** The gap to the plan is closed over this share of the flight (at least CATCH_UP_MIN_MS). */
const CATCH_UP_SHARE = 0.01;
const CATCH_UP_MIN_MS = 20_000;
/** Weight of the newest observation in the full-rate estimate. */
const SMOOTHING = 0.5;

/** The straight line: what the campaign should have spent by `nowMs`. */
export function plannedSpend(c: Pick<PacedCampaign, 'startMs' | 'endMs' | 'limitMicros'>, nowMs: number): number {
  if (nowMs <= c.startMs) return 0;
  if (nowMs >= c.endMs) return c.limitMicros;
  return Math.round((c.limitMicros * (nowMs - c.startMs)) / (c.endMs - c.startMs));
}

/** One controller step at `nowMs`, from the previous state (null: the campaign's first). */
export function pacingStep(c: PacedCampaign, previous: PacingState | null, nowMs: number): PacingStep {
  const planned = plannedSpend(c, nowMs);
  const base = { observedSpentMicros: c.spentMicros, observedAtMs: nowMs, plannedSpentMicros: planned };
  const fullRate = estimateFullRate(c, previous, nowMs);
  const timeLeftS = (c.endMs - nowMs) / 1000;
  if (nowMs < c.startMs || timeLeftS <= 0 || c.spentMicros >= c.limitMicros) return { ...base, participation: 1, fullRateMicrosPerSecond: fullRate };
  const gap = planned - c.spentMicros;
  if (fullRate === null || gap > BEHIND_TOLERANCE * planned) return { ...base, participation: 1, fullRateMicrosPerSecond: fullRate };
  const horizonS = Math.max(CATCH_UP_MIN_MS, CATCH_UP_SHARE * (c.endMs - c.startMs)) / 1000;
  const targetRate = Math.max(0, (c.limitMicros - c.spentMicros) / timeLeftS + gap / horizonS);
  const participation = Math.min(1, Math.max(MIN_PARTICIPATION, targetRate / fullRate));
  return { ...base, participation, fullRateMicrosPerSecond: fullRate };
}

/** The spend rate at full participation: last step's spend over its participation, smoothed. */
function estimateFullRate(c: PacedCampaign, previous: PacingState | null, nowMs: number): number | null {
  if (!previous) return null;
  const elapsedS = (nowMs - previous.observedAtMs) / 1000;
  if (elapsedS <= 0) return previous.fullRateMicrosPerSecond;
  const observed = (c.spentMicros - previous.observedSpentMicros) / elapsedS / previous.participation;
  if (previous.fullRateMicrosPerSecond === null) return observed > 0 ? observed : null;
  return SMOOTHING * observed + (1 - SMOOTHING) * previous.fullRateMicrosPerSecond;
}
