/**
 * Money is integer micros (1 USD = 1,000,000) everywhere on our side; dollars
 * appear only at the edges (DSP bids and prices, insights' spend).
 */
export const MICROS_PER_DOLLAR = 1_000_000;
/** The spec's minimum lifetime budget. */
export const MIN_BUDGET_MICROS = 990_000;
/** The spec's maximum ad group bid. */
export const MAX_BID_MICROS = 100_000_000;
/** The deposit charged when a campaign is created (USD 10). */
export const DEPOSIT_MICROS = 10 * MICROS_PER_DOLLAR;

/**
 * What an ad group bids when it sets no max_bid_micros: a CPM of 1.00 USD, or a
 * CPC of 0.50 USD. The in-house bidder bids them and the ledger bounds charges by them.
 */
export const DEFAULT_CPM_MICROS = 1_000_000;
export const DEFAULT_CPC_MICROS = 500_000;

/** Micros as dollars for people: cents when whole (`$1.50`), else as many digits as it takes (`$0.015`, never rounded up to `$0.02`). */
export function formatUsd(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const digits =
    abs % 10_000 === 0
      ? 2
      : String(abs % MICROS_PER_DOLLAR)
          .padStart(6, '0')
          .replace(/0+$/, '').length;
  return `${sign}$${(abs / MICROS_PER_DOLLAR).toFixed(Math.max(2, digits))}`;
}
