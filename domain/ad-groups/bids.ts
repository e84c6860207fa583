/**
 * What an ad group bids when it sets no max_bid_micros: a CPM of 1.00 USD, or a
 * CPC of 0.50 USD. The in-house bidder bids them and the ledger bounds charges by them.
 */
export const DEFAULT_CPM_MICROS = 1_000_000;
export const DEFAULT_CPC_MICROS = 500_000;
