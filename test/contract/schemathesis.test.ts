/**
 * The OpenAPI document says exactly what the server accepts: schemathesis
 * (installed by the bootstrap) runs every check, the stateful phase included,
 * against a real api process, bounded in time. 0 failures is the bar.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiProcess, type ServiceProcess } from '../../dev/processes';
import { closeDb, createDb, type Db } from '../../lib/db';
import { newOrg } from '../support/harness';

const SCHEMATHESIS = path.join(
  require('node:child_process').execSync(`python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'`).toString().trim(),
  'schemathesis',
);
const MAX_SECONDS = Number(process.env.CONTRACT_MAX_SECONDS ?? 100);

let api: ServiceProcess;
let db: Db;
let workDir: string;
beforeAll(async () => {
  // Rate limits raised for the run; image fetches never leave loopback.
  api = await startApiProcess({
    NODE_ENV: 'test', RATE_LIMIT_PER_HOUR: '10000000', RATE_LIMIT_CAMPAIGN_CREATES_PER_HOUR: '10000000', RATE_LIMIT_API_KEY_MINTS_PER_HOUR: '10000000', IMAGE_FETCH_LOOPBACK_ONLY: '1',
  });
  db = createDb(undefined, 2);
  workDir = mkdtempSync(path.join(tmpdir(), 'schemathesis-')); // it writes .schemathesis/ into its working directory
}, 120_000);
afterAll(async () => {
  await api?.stop();
  if (db) await closeDb(db);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function runSchemathesis(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(SCHEMATHESIS, args, { cwd: workDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const kill = setTimeout(() => child.kill('SIGKILL'), (MAX_SECONDS + 60) * 1000);
    child.on('exit', (code) => { clearTimeout(kill); resolve({ code, output }); });
  });
}

test('schemathesis: every check, stateful phase included, 0 failures', async () => {
  const org = await newOrg(db);
  // Key management gets an organization of its own: its mints rotate that one's keys,
  // never the key the /v1 operations are tested with.
  const keyOwner = await newOrg(db);
  const { code, output } = await runSchemathesis([
    '--config-file', path.join(__dirname, 'schemathesis.toml'),
    'run', `${api.url}/v1/openapi.json`, '--url', api.url,
    '--checks', 'all', '--max-time', String(MAX_SECONDS), '--no-color', '--seed', String(Date.now() % 100000),
  ], { CONTRACT_API_KEY: org.api_key, CONTRACT_SESSION_TOKEN: keyOwner.session_token, CONTRACT_ORG_PUBLIC_ID: keyOwner.org_public_id });
  mkdirSync(path.join(__dirname, '../../test-output'), { recursive: true });
  writeFileSync(path.join(__dirname, '../../test-output/schemathesis.txt'), output);
  const summary = /Test cases:\s*\n\s*(\d+) generated, (.*)/.exec(output);
  // The figures go to the log for the record (cases generated, failures).
  console.log(`schemathesis: ${summary ? `${summary[1]} cases generated, ${summary[2]}` : 'no summary'}\n${output.split('\n').slice(-25).join('\n')}`);
  expect({ code, failures: output.match(/^\s*❌ .*: \d+$/gm) ?? [] }).toEqual({ code: 0, failures: [] });
  expect(Number(summary?.[1] ?? 0)).toBeGreaterThan(200);
  // The /v1 key was never retired by the key-management operations' mints.
  const probe = await fetch(`${api.url}/v1/ad_account`, { headers: { authorization: `Bearer ${org.api_key}` } });
  expect(probe.status).toBe(200);
}, (MAX_SECONDS + 120) * 1000);
