import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import { startBackgroundLoop, type BackgroundLoop } from '../../lib/background-loop';
import { insertDeliveryRows, insertDspDeliveryRows, type DeliveryRow, type DspDeliveryRow } from './rows';

/**
 * Moves committed ledger rows (domain/delivery/ledger.ts) into ClickHouse in
 * batches, off the request path. A batch is claimed with FOR UPDATE SKIP LOCKED
 * (several api processes export side by side without sharing rows), written
 * (idempotent on event_id: a batch re-sent after a crash counts once), then
 * marked exported in the same transaction. Rows of a process killed mid-batch
 * are simply exported again by whoever runs next.
 */
interface LedgerRow {
  event_id: string;
  event_type: string;
  event_ms: string;
  auction_id: string;
  source: string;
  organization_id: string;
  ad_account_id: string;
  campaign_id: string;
  ad_group_id: string;
  ad_id: string;
  dsp_id: string;
  bid_id: string;
  publisher_id: string;
  country: string;
  device: string;
  price_micros: string;
  charged_micros: string;
}

const counts = (type: string) => ({ impressions: type === 'impression' ? 1 : 0, clicks: type === 'click' ? 1 : 0 });

/** An in-house delivery as insights count it: impressions, clicks and the spend actually charged. */
function ownRow(r: LedgerRow): DeliveryRow {
  return {
    event_id: r.event_id, event_type: r.event_type, event_time: new Date(Number(r.event_ms)),
    organization_id: r.organization_id, ad_account_id: r.ad_account_id, campaign_id: r.campaign_id, ad_group_id: r.ad_group_id, ad_id: r.ad_id,
    source: 'own', country: r.country, device: r.device, publisher_id: r.publisher_id, auction_id: r.auction_id,
    ...counts(r.event_type), spend_micros: BigInt(r.charged_micros),
  };
}

function dspRow(r: LedgerRow): DspDeliveryRow {
  return {
    event_id: r.event_id, event_type: r.event_type, event_time: new Date(Number(r.event_ms)), auction_id: r.auction_id, dsp_id: r.dsp_id, bid_id: r.bid_id,
    publisher_id: r.publisher_id, country: r.country, device: r.device, ...counts(r.event_type),
    revenue_micros: r.event_type === 'impression' ? Number(r.price_micros) : 0,
  };
}

/** Exports up to `limit` unexported ledger rows; returns how many it exported. */
export async function exportLedgerBatch(pool: Pool, ch: ClickHouseClient, database: string, limit: number): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<LedgerRow>(
      `SELECT event_id, event_type, (extract(epoch FROM event_time) * 1000)::bigint::text AS event_ms, auction_id, source, organization_id, ad_account_id, campaign_id, ad_group_id, ad_id,
              dsp_id, bid_id, publisher_id, country, device, price_micros::text, charged_micros::text
         FROM delivery_ledger WHERE exported_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (rows.length > 0) {
      await insertDeliveryRows(ch, database, rows.filter((r) => r.source === 'inhouse').map(ownRow));
      await insertDspDeliveryRows(ch, database, rows.filter((r) => r.source === 'dsp').map(dspRow));
      await client.query('UPDATE delivery_ledger SET exported_at = now() WHERE event_id = ANY($1::text[])', [rows.map((r) => r.event_id)]);
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Ledger rows stay (as the dedupe of replays) until no token can name them any more. */
export async function pruneLedger(pool: Pool, tokenTtlSeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    // event_time has a BRIN index; an unexported row is never pruned, however old.
    `DELETE FROM delivery_ledger WHERE event_time < now() - make_interval(secs => $1) AND exported_at IS NOT NULL`,
    [tokenTtlSeconds + 86_400],
  );
  return rowCount ?? 0;
}

/**
 * The exporter loop of an api process: exports while there is work, then waits
 * `intervalMs`; prunes hourly. `runNow()` drains what is committed (tests,
 * shutdown after the server stopped taking requests).
 */
export function startLedgerExporter(pool: Pool, ch: ClickHouseClient, database: string, opts: { batch: number; intervalMs: number; tokenTtlSeconds: number }): BackgroundLoop {
  let lastPrune = Date.now();
  return startBackgroundLoop('delivery export', async () => {
    while ((await exportLedgerBatch(pool, ch, database, opts.batch)) === opts.batch) { /* a full batch: more may wait */ }
    if (Date.now() - lastPrune > 3_600_000) {
      lastPrune = Date.now();
      await pruneLedger(pool, opts.tokenTtlSeconds);
    }
  }, opts.intervalMs);
}
