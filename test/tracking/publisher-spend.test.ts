/**
 * The per-publisher daily spend alarm (jobs/publisher-spend.ts) read from the
 * publisher report's delivery rollup in the real ClickHouse: today's spend,
 * the trailing 7-day daily average, and the alarm past a multiple of it or the cap.
 */
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { createClickhouse } from '../../lib/clickhouse/client';
import { config } from '../../lib/config';
import { REPORT_TABLES } from '../../auction/reports/clickhouse-tables';
import { registerPublisherSpendGauges, spendAlarm } from '../../jobs/publisher-spend';

const ch = createClickhouse();
afterAll(() => ch.close());

const DAY = 86_400_000;
const startOfToday = () => Math.floor(Date.now() / DAY) * DAY;

/** In-house revenue rows of the rollup for one publisher: `today` in this UTC day's first hour, `daily` on each of the 7 days before. */
async function spendRows(publisher: string, todayMicros: number, dailyMicros: number) {
  const hours = [
    { at: startOfToday(), micros: todayMicros },
    ...Array.from({ length: 7 }, (_, i) => ({ at: startOfToday() - (i + 1) * DAY, micros: dailyMicros })),
  ];
  await ch.insert({
    table: `${config.clickhouse.database}.${REPORT_TABLES.delivery}`,
    values: hours
      .filter((h) => h.micros > 0)
      .map((h) => ({ publisher_id: publisher, hour: h.at / 1000, source: 'inhouse', country: 'US', impressions: 1, clicks: 0, revenue_micros: h.micros })),
    format: 'JSONEachRow',
  });
}

const sample = (text: string, name: string, publisher: string) =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${name}{publisher="${publisher}"} `))
      ?.split(' ')
      .pop() ?? NaN,
  );

test('the rule: a multiple of the trailing average once past the minimum, or the cap whatever the history', () => {
  const rule = { multiple: 3, minMicros: 10_000_000, capMicros: 0 };
  expect(spendAlarm(31_000_000, 10_000_000, rule)).toBe(true);
  expect(spendAlarm(30_000_000, 10_000_000, rule)).toBe(false);
  expect(spendAlarm(9_000_000, 0, rule)).toBe(false); // a new publisher's first dollars
  expect(spendAlarm(10_000_000, 0, rule)).toBe(true);
  expect(spendAlarm(60_000_000, 50_000_000, { ...rule, capMicros: 55_000_000 })).toBe(true);
});

test("each publisher's spend today, its trailing daily average and the alarm reach the worker's metrics", async () => {
  const runaway = randomUUID();
  const steady = randomUUID();
  await spendRows(runaway, 50_000_000, 5_000_000);
  await spendRows(steady, 12_000_000, 10_000_000);
  const registry = new Registry();
  registerPublisherSpendGauges(registry, { ch, database: config.clickhouse.database, rule: { multiple: 3, minMicros: 10_000_000, capMicros: 0 } });
  const text = await registry.metrics();
  expect(sample(text, 'worker_publisher_spend_today_micros', runaway)).toBe(50_000_000);
  expect(sample(text, 'worker_publisher_spend_trailing_daily_micros', runaway)).toBe(5_000_000);
  expect(sample(text, 'worker_publisher_spend_alarm', runaway)).toBe(1);
  expect(sample(text, 'worker_publisher_spend_today_micros', steady)).toBe(12_000_000);
  expect(sample(text, 'worker_publisher_spend_alarm', steady)).toBe(0);
});
