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
