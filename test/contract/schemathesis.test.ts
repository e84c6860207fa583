/**
 * The OpenAPI document says exactly what the server accepts: schemathesis runs
 * every check, the stateful phase included, against a real api process, bounded
 * in time. 0 failures is the bar.
 */
import path from 'node:path';
import { startApiProcess, type ServiceProcess } from '../../dev/processes';
import { closeDb, createDb, type Db } from '../../lib/db';
import { newOrg } from '../support/harness';
import { runSchemathesis } from '../support/schemathesis';
import { csrfTokenFor } from '../../lib/csrf';

const MAX_SECONDS = Number(process.env.CONTRACT_MAX_SECONDS ?? 100);

let api: ServiceProcess;
let db: Db;
beforeAll(async () => {
  // Rate limits raised for the run; image fetches never leave loopback.
  api = await startApiProcess({
    NODE_ENV: 'test',
    RATE_LIMIT_PER_HOUR: '10000000',
    RATE_LIMIT_CAMPAIGN_CREATES_PER_HOUR: '10000000',
    RATE_LIMIT_API_KEY_MINTS_PER_HOUR: '10000000',
    IMAGE_FETCH_LOOPBACK_ONLY: '1',
  });
  db = createDb(undefined, 2);
}, 120_000);
afterAll(async () => {
  await api?.stop();
  if (db) await closeDb(db);
});

test(
  'schemathesis: every check, stateful phase included, 0 failures',
  async () => {
    const org = await newOrg(db);
    // Key management gets an organization of its own: its mints rotate that one's keys,
    // never the key the /v1 operations are tested with.
    const keyOwner = await newOrg(db);
    const run = await runSchemathesis({
      name: 'api',
      configFile: path.join(__dirname, 'schemathesis.toml'),
      schemaUrl: `${api.url}/v1/openapi.json`,
      baseUrl: api.url,
      maxSeconds: MAX_SECONDS,
      env: {
        CONTRACT_API_KEY: org.api_key,
        CONTRACT_SESSION_TOKEN: keyOwner.session_token,
        CONTRACT_ORG_PUBLIC_ID: keyOwner.org_public_id,
        CONTRACT_DASHBOARD_CSRF: csrfTokenFor(keyOwner.session_token),
      },
    });
    expect({ exitCode: run.exitCode, failures: run.failures }).toEqual({ exitCode: 0, failures: [] });
    expect(run.casesGenerated).toBeGreaterThan(200);
    // The /v1 key was never retired by the key-management operations' mints.
    const probe = await fetch(`${api.url}/v1/ad_account`, { headers: { authorization: `Bearer ${org.api_key}` } });
    expect(probe.status).toBe(200);
  },
  (MAX_SECONDS + 120) * 1000,
);
