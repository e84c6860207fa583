/**
 * The auction's OpenAPI document says exactly what it accepts: schemathesis runs
 * every check against a real auction instance on loopback, bounded in time.
 * 0 failures is the bar.
 */
import path from 'node:path';
import { runSchemathesis } from '../support/schemathesis';
import { useAuction } from './support';
import { config } from '../../lib/config';

const MAX_SECONDS = Number(process.env.CONTRACT_MAX_SECONDS ?? 30);

// No in-house demand (closed budget gate) and no DSPs: the run tests the contract, not the market.
const h = useAuction({ budget: { mayServe: () => false } });
// The run sends many reports with one publisher key: its hourly budget is not under test here (publisher-report-bounds is).
const reportBudget = config.publisherReports.perPublisherPerHour;
beforeAll(() => {
  config.publisherReports.perPublisherPerHour = 10_000_000;
});
afterAll(() => {
  config.publisherReports.perPublisherPerHour = reportBudget;
});

test(
  'schemathesis against GET /v1/openapi.json of the auction: every check, 0 failures',
  async () => {
    const run = await runSchemathesis({
      name: 'auction',
      configFile: path.join(__dirname, 'schemathesis.toml'),
      schemaUrl: `${h.url}/v1/openapi.json`,
      baseUrl: h.url,
      maxSeconds: MAX_SECONDS,
      env: { CONTRACT_PUBLISHER_KEY: h.publisherKey },
    });
    expect({ exitCode: run.exitCode, failures: run.failures }).toEqual({ exitCode: 0, failures: [] });
    // The run did generate cases (a busy machine makes fewer in the time allowed: 16 beside a full suite and more).
    expect(run.casesGenerated).toBeGreaterThan(10);
  },
  (MAX_SECONDS + 120) * 1000,
);
