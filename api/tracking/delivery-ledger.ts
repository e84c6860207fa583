import type { Pool } from 'pg';
import { config } from '../../lib/config';
import { closeWithin } from '../../lib/deadline';
import { feedbackCallbackOf } from '../../domain/delivery/dsp-callbacks';
import { createDeliveryLedger, type DeliveryLedgerWriter } from '../../domain/delivery/ledger';
import type { LedgerObserver } from '../../domain/delivery/metrics';

/**
 * The api's half of delivery tracking: the trackers write through the ledger
 * and answer once their event is committed. The other half, moving committed
 * rows to ClickHouse and forwarding DSP feedback, is the worker's background
 * jobs (jobs/delivery-export.ts, jobs/dsp-callbacks.ts): kept out of the api,
 * since turning a second's ledger rows into a ClickHouse insert is synchronous
 * work that held the api's event loop, and so its pixels, for tens of
 * milliseconds every second. `close()` (after the api stopped taking work) lets
 * the ledger's flushes in flight finish, so a normal stop loses nothing.
 */
export interface DeliveryLedgerProcess {
  ledger: DeliveryLedgerWriter;
  close(): Promise<void>;
}

/** Takes ownership of `pool`: close() ends it. */
export function startDeliveryLedger(deps: {
  pool: Pool;
  /** Campaigns a charge just exhausted (the lifecycle workflow completes them). */
  onBudgetExhausted?: (campaignIds: string[]) => void;
  /** The process's delivery metrics (createApiMetrics' `delivery`). */
  observer?: LedgerObserver;
}): DeliveryLedgerProcess {
  const ledger = createDeliveryLedger(deps.pool, {
    onBudgetExhausted: deps.onBudgetExhausted,
    feedbackCallback: feedbackCallbackOf,
    minFlushSpacingMs: config.delivery.ledgerFlushSpacingMs,
    observer: deps.observer,
    burst: config.delivery.burst,
  });
  return {
    ledger,
    close: () => closeWithin(config.timeouts.closeMs, 'delivery ledger pool', () => deps.pool.end()),
  };
}
