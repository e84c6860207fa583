import { DEFAULT_CPC_MICROS, DEFAULT_CPM_MICROS } from '../../domain/money';

/**
 * The in-house bidder's pricing and its test seams. Whether an ad may serve
 * at all, and whether its creative fits a request, are the domain's rules
 * (domain/serving/eligibility.ts), shared with the delivery diagnostics.
 */

/** A test seam over budgets (the contract run closes in-house demand with it). Spent budgets themselves never reach the index: loadIndexedAds drops them. */
export interface BudgetGate {
  mayServe(campaignId: string): boolean;
}
export const alwaysOpenBudget: BudgetGate = { mayServe: () => true };

/**
 * Click-through estimate for cpc campaigns: a Beta(1, 99) prior (1% CTR)
 * smoothed with observed clicks and impressions; with no data yet the prior.
 */
export interface CtrEstimator {
  ctr(adGroupId: string): number;
}
export const PRIOR_CLICKS = 1;
export const PRIOR_IMPRESSIONS = 100;
export function smoothedCtr(clicks: number, impressions: number): number {
  return (clicks + PRIOR_CLICKS) / (impressions + PRIOR_IMPRESSIONS);
}
export const priorCtr: CtrEstimator = { ctr: () => smoothedCtr(0, 0) };

export { DEFAULT_CPC_MICROS, DEFAULT_CPM_MICROS } from '../../domain/money';

/** The in-house bid as a CPM in micros: cpm max bid as is; cpc as eCPM = max CPC x CTR x 1000. */
export function bidCpmMicros(pricingModel: string, maxBidMicros: number | null, ctr: number): number {
  if (pricingModel === 'cpc') return Math.round((maxBidMicros ?? DEFAULT_CPC_MICROS) * ctr * 1000);
  return maxBidMicros ?? DEFAULT_CPM_MICROS;
}
