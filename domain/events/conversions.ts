import type { ClickHouseClient } from '@clickhouse/client';
import { CLICKHOUSE_18_16, clickhouseDialect, type ClickhouseDialect } from '../../lib/clickhouse/dialect';
import { identifier, sql } from '../../lib/clickhouse/sql';
import { COLLECTED_EVENTS_TABLE } from './clickhouse-tables';

/**
 * Where a conversion is stored: as the advertiser's collected event (POST /v1/events,
 * api/events/collect.ts), committed to the PostgreSQL inbox (inbox.ts) and moved by the event
 * pipeline (jobs/event-mover.ts) to ClickHouse `collected_events` (clickhouse-tables.ts). It becomes a
 * conversion when it is attributed, at read time, here.
 *
 * Conversions for insights (`conversions` in `fields[]`): a collected event is
 * attributed to an ad when its `click_id` (the `ad_click_id` our click
 * redirect appended to the landing page, or the click's event id),
 * `impression_id` or `bid_id` equals the `event_id` of one of our delivery rows (`delivery_events`, same
 * organization) and it happened inside the attribution window after that
 * delivery: 30 days after a click (click_id), 1 day after an impression or bid
 * (impression_id, bid_id: view-through). An event matching several deliveries
 * counts once, for the highest-priority match (click, then impression, then bid).
 * Buckets by the conversion's own `timestamp`.
 */
export const ATTRIBUTION_WINDOWS_SECONDS = { click_id: 30 * 86_400, impression_id: 86_400, bid_id: 86_400 } as const;

/**
 * A `click_id` is matched as sent (the click's event id, `<auction id>:click`)
 * and as the landing page's `ad_click_id` (the auction id: the click's event id
 * without its suffix); either way it is one click, at the click's priority.
 */
const CLICK_KEYS = "click_id, if(click_id = '', '', concat(click_id, ':click'))";

export type ConversionGranularity = 'hourly' | 'daily' | 'monthly' | 'none';

export interface ConversionQuery extends AttributionQuery {
  adIds: string[];
  granularity: ConversionGranularity;
}

const BUCKETS: Record<ConversionGranularity, string> = {
  hourly: 'toUnixTimestamp(toStartOfHour(ts))',
  daily: 'toUnixTimestamp(toDateTime(toDate(ts)))',
  monthly: 'toUnixTimestamp(toDateTime(toStartOfMonth(ts)))',
  none: '',
};

/** Columns of the delivery row a conversion is attributed to, carried by every attributed conversion. */
export const ATTRIBUTED_DELIVERY_COLUMNS = ['ad_account_id', 'campaign_id', 'ad_group_id', 'ad_id', 'source', 'country', 'device'] as const;

export interface AttributionQuery {
  organizationId: string;
  /** Conversions whose own `timestamp` is in [start, end). */
  start: Date;
  end: Date;
  /** Database of both tables; default the client's. */
  database?: string;
  /** Table of delivery rows; default `delivery_events`. */
  deliveryTable?: string;
  /** The server's dialect (lib/clickhouse/dialect.ts); default ClickHouse 18.16's. */
  dialect?: ClickhouseDialect;
}

/**
 * The query of attributed conversions: one row per collected
 * event that matches one of our deliveries inside its attribution window,
 * `{ organization_id, inbox_id, ts, ...ATTRIBUTED_DELIVERY_COLUMNS }` (the
 * delivery of the highest-priority match).
 */
export function attributedConversionsSql(q: AttributionQuery): string {
  const table = (name: string) => (q.database ? `${identifier(q.database)}.${identifier(name)}` : identifier(name));
  const { click_id, impression_id, bid_id } = ATTRIBUTION_WINDOWS_SECONDS;
  // Deliveries old enough to attribute a conversion at `start` are needed too.
  const earliestDelivery = new Date(q.start.getTime() - click_id * 1000);
  const columns = ATTRIBUTED_DELIVERY_COLUMNS.join(', ');
  const dialect = q.dialect ?? CLICKHOUSE_18_16;
  return `
    SELECT organization_id, inbox_id, ts, ${ATTRIBUTED_DELIVERY_COLUMNS.map((c, i) => `delivery.${i + 1} AS ${c}`).join(', ')}
    FROM (
      SELECT organization_id, inbox_id, any(timestamp) AS ts, argMin((${columns}), priority) AS delivery
      FROM (
        SELECT organization_id, inbox_id, timestamp, attribution_key, priority, window_seconds
        FROM ${table(COLLECTED_EVENTS_TABLE)}
        ARRAY JOIN [${CLICK_KEYS}, impression_id, bid_id] AS attribution_key, [1, 1, 2, 3] AS priority,
                   ${sql`${[click_id, click_id, impression_id, bid_id]}`} AS window_seconds
        WHERE ${sql`organization_id = ${q.organizationId} AND timestamp >= ${q.start} AND timestamp < ${q.end}`}
          AND attribution_key != ''
      )${dialect.joinAlias('conversion')}
      ${dialect.anyInnerJoin} (
        SELECT organization_id, event_id AS attribution_key, ${columns}, event_time
        FROM ${table(q.deliveryTable ?? 'delivery_events')}
        WHERE ${sql`organization_id = ${q.organizationId} AND event_time >= ${earliestDelivery} AND event_time < ${q.end}`}
      )${dialect.joinAlias('delivery_row')} USING (organization_id, attribution_key)
      WHERE timestamp >= event_time AND timestamp <= event_time + window_seconds
      GROUP BY organization_id, inbox_id
    )`;
}

/** The query: rows `{ ad_id, bucket_start (Unix s), conversions }`. */
export function conversionsByAdSql(q: ConversionQuery): string {
  const bucket = q.granularity === 'none' ? sql`${Math.floor(q.start.getTime() / 1000)}` : BUCKETS[q.granularity];
  return `
    SELECT ad_id, toUInt32(${bucket}) AS bucket_start, count() AS conversions
    FROM (${attributedConversionsSql(q)})
    WHERE ${sql`has(${q.adIds.length ? q.adIds : ['']}, ad_id)`}
    GROUP BY ad_id, bucket_start
    ORDER BY ad_id, bucket_start`;
}

export async function conversionsByAd(
  clickhouse: ClickHouseClient,
  q: ConversionQuery,
): Promise<{ ad_id: string; bucket_start: number; conversions: number }[]> {
  if (q.adIds.length === 0) return [];
  const result = await clickhouse.query({ query: conversionsByAdSql({ ...q, dialect: await clickhouseDialect(clickhouse) }), format: 'JSONEachRow' });
  return result.json();
}
