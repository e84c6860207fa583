import { Counter, Histogram, type Registry } from 'prom-client';
import type { Pool } from 'pg';
import type { DeliveryOutcome, TrackedDelivery } from './ledger';
import type { DeliveryTokenKind, TokenForm } from './tracking-token';

/**
 * Delivery figures (docs/operations.md, "Metrics"). The api counts what its
 * trackers committed to the ledger: impressions, clicks and feedback by source
 * (`inhouse`, `dsp`; repeats count nothing), the spend charged, and each ledger
 * flush's latency and size. The worker reads the export's lag (how old the
 * oldest ledger row ClickHouse does not have yet is) when scraped.
 */
export interface LedgerObserver {
  flushed(batch: TrackedDelivery[], outcomes: DeliveryOutcome[], ms: number): void;
  failed(batch: TrackedDelivery[], ms: number): void;
}

const FLUSH_MS_BUCKETS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500];

export function createLedgerMetrics(registry: Registry, prefix: string): LedgerObserver {
  const events = new Counter({
    name: `${prefix}_delivery_events_total`,
    help: 'Deliveries committed to the ledger (impression, click, thumbs_up, thumbs_down), by source (inhouse, dsp); repeats not counted',
    labelNames: ['type', 'source'],
    registers: [registry],
  });
  const spend = new Counter({
    name: `${prefix}_delivery_spend_micros_total`,
    help: "Spend charged to our advertisers' campaigns by committed deliveries (USD micros), by event type",
    labelNames: ['type'],
    registers: [registry],
  });
  const invalid = new Counter({
    name: `${prefix}_invalid_traffic_total`,
    help: 'Deliveries recorded as invalid traffic and charged nothing (domain/delivery/invalid-traffic.ts), by type and reason (bot_user_agent, user_agent_mismatch, network_mismatch, burst)',
    labelNames: ['type', 'reason'],
    registers: [registry],
  });
  const feedback = new Counter({
    name: `${prefix}_delivery_feedback_total`,
    help: "Users' feedback committed to the ledger, by verdict (thumbs_up, thumbs_down) and the reason they picked (none when they gave none)",
    labelNames: ['feedback', 'reason'],
    registers: [registry],
  });
  const flushes = new Histogram({
    name: `${prefix}_ledger_flush_duration_ms`,
    help: 'Delivery ledger flush latency (ms): one transaction for a batch of tracker requests, by outcome (ok, error)',
    labelNames: ['outcome'],
    buckets: FLUSH_MS_BUCKETS,
    registers: [registry],
  });
  const batches = new Histogram({
    name: `${prefix}_ledger_flush_batch_size`,
    help: 'Tracker requests per delivery ledger flush',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  return {
    flushed(batch, outcomes, ms) {
      flushes.observe({ outcome: 'ok' }, ms);
      batches.observe(batch.length);
      batch.forEach((delivery, i) => {
        const outcome = outcomes[i];
        if (!outcome?.recorded) return;
        events.inc({ type: delivery.type, source: delivery.claims.source });
        if (delivery.type === 'thumbs_up' || delivery.type === 'thumbs_down') feedback.inc({ feedback: delivery.type, reason: delivery.reason ?? 'none' });
        if (outcome.invalid) invalid.inc({ type: delivery.type, reason: outcome.invalid });
        if (outcome.chargedMicros > 0) spend.inc({ type: delivery.type }, outcome.chargedMicros);
      });
    },
    failed(batch, ms) {
      flushes.observe({ outcome: 'error' }, ms);
      batches.observe(batch.length);
    },
  };
}

/** What the trackers were handed: each token read, by its URL's kind and its form. */
export interface TokenObserver {
  read(kind: DeliveryTokenKind, form: TokenForm | 'none'): void;
}

export function createTrackingTokenMetrics(registry: Registry, prefix: string): TokenObserver {
  const reads = new Counter({
    name: `${prefix}_tracking_tokens_total`,
    help:
      "Tokens the view, click and feedback trackers read, by kind and form: compact, json (the auction's form before 2026-11-27, read until the last expires), " +
      'none (not genuine: missing, malformed, tampered, another kind, an unknown key)',
    labelNames: ['kind', 'form'],
    registers: [registry],
  });
  return { read: (kind, form) => reads.inc({ kind, form }) };
}

/** Runs one ledger flush, telling `observer` how it went. */
export async function observedFlush(
  observer: LedgerObserver | undefined,
  batch: TrackedDelivery[],
  flush: () => Promise<DeliveryOutcome[]>,
): Promise<DeliveryOutcome[]> {
  if (!observer) return flush();
  const started = performance.now();
  try {
    const outcomes = await flush();
    observer.flushed(batch, outcomes, performance.now() - started);
    return outcomes;
  } catch (err) {
    observer.failed(batch, performance.now() - started);
    throw err;
  }
}

/**
 * Seconds since the oldest ledger row the export has not passed yet was
 * tracked (0 when the export is caught up): what insights are behind by.
 */
export async function deliveryExportLagSeconds(pool: Pool): Promise<number> {
  const {
    rows: [cursor],
  } = await pool.query<{ txid: string; seq: string }>('SELECT txid::text, seq::text FROM delivery_export_cursor WHERE id = 1');
  if (!cursor) return 0;
  // The cursor as constants, so that the (txid, seq) index finds the first row after it (as the export reads).
  const { rows } = await pool.query<{ lag: number }>(
    `SELECT greatest(0, extract(epoch FROM (now() AT TIME ZONE 'UTC') - event_time))::float8 AS lag
       FROM delivery_ledger WHERE (txid, seq) > ($1::xid8, $2::bigint) ORDER BY txid, seq LIMIT 1`,
    [cursor.txid, cursor.seq],
  );
  return rows[0]?.lag ?? 0;
}
