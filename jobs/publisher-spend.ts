import type { ClickHouseClient } from '@clickhouse/client';
import { Gauge, type Registry } from 'prom-client';
import { identifier, sql } from '../lib/clickhouse/sql';
import { REPORT_TABLES } from '../auction/reports/clickhouse-tables';

/**
 * The per-publisher daily spend alarm (docs/operations.md, "Metrics"): what
 * our advertisers were charged on each publisher's traffic this UTC day, its
 * trailing 7-day daily average, and an alarm when today runs away from it,
 * the sign of traffic the invalid-traffic rules (domain/delivery/invalid-traffic.ts)
 * did not catch. Read from the publisher report's delivery rollup when scraped.
 */
export interface SpendAlarmRule {
  /** Today above this multiple of the trailing average is an alarm... */
  multiple: number;
  /** ...once today reaches this much (a new or small publisher's first dollars are no alarm). */
  minMicros: number;
  /** Today above this is an alarm whatever the history (0: no cap). */
  capMicros: number;
}

export const TRAILING_DAYS = 7;

export function spendAlarm(todayMicros: number, trailingDailyMicros: number, rule: SpendAlarmRule): boolean {
  if (rule.capMicros > 0 && todayMicros > rule.capMicros) return true;
  return todayMicros >= rule.minMicros && todayMicros > rule.multiple * trailingDailyMicros;
}

export interface PublisherSpend {
  publisherId: string;
  todayMicros: number;
  trailingDailyMicros: number;
}

/** In-house spend per publisher: this UTC day's, and the daily average of the 7 days before it. */
export async function publisherSpend(ch: ClickHouseClient, database: string, now = new Date()): Promise<PublisherSpend[]> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = new Date(today.getTime() - TRAILING_DAYS * 86_400_000);
  const result = await ch.query({
    query: `SELECT publisher_id, ${sql`sumIf(revenue_micros, hour >= ${today})`} AS today, ${sql`sumIf(revenue_micros, hour < ${today})`} AS before
      FROM ${identifier(database)}.${REPORT_TABLES.delivery}
      WHERE source = 'inhouse' AND ${sql`hour >= ${from}`}
      GROUP BY publisher_id`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ publisher_id: string; today: string | number; before: string | number }>()).map((r) => ({
    publisherId: r.publisher_id,
    todayMicros: Number(r.today),
    trailingDailyMicros: Math.round(Number(r.before) / TRAILING_DAYS),
  }));
}

/** worker_publisher_spend_today_micros, worker_publisher_spend_trailing_daily_micros and worker_publisher_spend_alarm, per publisher. */
export function registerPublisherSpendGauges(registry: Registry, deps: { ch?: ClickHouseClient; database: string; rule: SpendAlarmRule }): void {
  // One query per scrape for the three gauges (a second's reuse).
  let read: { at: number; spend: Promise<PublisherSpend[]> } | null = null;
  const spend = () => {
    if (!read || Date.now() - read.at > 1000) read = { at: Date.now(), spend: deps.ch ? publisherSpend(deps.ch, deps.database) : Promise.resolve([]) };
    return read.spend;
  };
  const gauge = (name: string, help: string, value: (s: PublisherSpend) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['publisher'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const s of await spend()) this.set({ publisher: s.publisherId }, value(s));
      },
    });
  gauge('worker_publisher_spend_today_micros', "Spend charged to our advertisers on each publisher's traffic this UTC day (micros)", (s) => s.todayMicros);
  gauge(
    'worker_publisher_spend_trailing_daily_micros',
    `Daily average of that spend over the ${TRAILING_DAYS} UTC days before today (micros)`,
    (s) => s.trailingDailyMicros,
  );
  gauge(
    'worker_publisher_spend_alarm',
    "1 when a publisher's spend today exceeds PUBLISHER_SPEND_ALARM_MULTIPLE times its trailing average (once at least PUBLISHER_SPEND_ALARM_MIN_MICROS) or PUBLISHER_SPEND_ALARM_CAP_MICROS",
    (s) => (spendAlarm(s.todayMicros, s.trailingDailyMicros, deps.rule) ? 1 : 0),
  );
}
