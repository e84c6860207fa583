import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { config } from '../lib/config';

/**
 * The bootstrap from a fresh state: a new data folder and ports of its own, so
 * it starts a new ClickHouse and a new Temporal dev server beside the ones the
 * suite uses (PostgreSQL is the machine's; it is given as DATABASE_URL).
 */
const root = path.resolve(__dirname, '..');
const dataDir = mkdtempSync('/tmp/adplatform-bootstrap-');
chmodSync(dataDir, 0o755); // ClickHouse runs as its own user and must reach its folder
const ports = { chHttp: 18123, chTcp: 19000, temporal: 17233, temporalUi: 18233 };

const env: NodeJS.ProcessEnv = {
  ...process.env,
  ADPLATFORM_DATA_DIR: dataDir,
  ADPLATFORM_CLICKHOUSE_HTTP_PORT: String(ports.chHttp),
  ADPLATFORM_CLICKHOUSE_TCP_PORT: String(ports.chTcp),
  ADPLATFORM_TEMPORAL_PORT: String(ports.temporal),
  ADPLATFORM_TEMPORAL_UI_PORT: String(ports.temporalUi),
  DATABASE_URL: config.databaseUrl,
  CLICKHOUSE_DATABASE: 'adplatform_bootstrap_test',
};
delete env.CLICKHOUSE_URL;
delete env.TEMPORAL_ADDRESS;

function bootstrap(): Promise<{ code: number; log: string }> {
  return new Promise((resolve) => {
    execFile('bash', [path.join(root, 'scripts/bootstrap.sh'), '--test'], { cwd: root, env, timeout: 150_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, log: stdout + stderr });
    });
  });
}

const pidsOf = (pattern: string) => {
  try {
    return execFileSync('pgrep', ['-f', pattern]).toString().trim().split('\n').filter(Boolean).sort();
  } catch {
    return [];
  }
};
const clickhousePids = () => pidsOf(`${dataDir}/clickhouse/config.xml`);
const temporalPids = () => pidsOf(`${dataDir}/temporal.sqlite`);

async function healthy(url: string) {
  return fetch(url).then((r) => r.ok, () => false);
}

afterAll(() => {
  for (const pid of [...clickhousePids(), ...temporalPids()]) {
    try { process.kill(Number(pid), 'SIGKILL'); } catch { /* already gone */ }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test('starts ClickHouse and Temporal from nothing, health-checked, and applies the schemas', async () => {
  const first = await bootstrap();
  expect(first.code).toBe(0);
  expect(first.log).toContain('starting ClickHouse');
  expect(first.log).toContain('starting Temporal dev server');
  expect(first.log).toContain('services ready');
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(true);
  expect(await healthy(`http://127.0.0.1:${ports.temporalUi}/`)).toBe(true);
  const tables = await fetch(`http://127.0.0.1:${ports.chHttp}/?query=${encodeURIComponent('SHOW TABLES FROM adplatform_bootstrap_test')}`).then((r) => r.text());
  expect(tables).toContain('delivery_events');
  expect(clickhousePids()).toHaveLength(1);
  expect(temporalPids()).toHaveLength(1);
}, 180_000);

test('running it twice changes nothing', async () => {
  const before = { ch: clickhousePids(), temporal: temporalPids() };
  const second = await bootstrap();
  expect(second.code).toBe(0);
  expect(second.log).not.toContain('starting');
  expect({ ch: clickhousePids(), temporal: temporalPids() }).toEqual(before);
}, 180_000);

test('a stopped service is started again', async () => {
  for (const pid of clickhousePids()) process.kill(Number(pid), 'SIGKILL');
  for (let i = 0; i < 50 && clickhousePids().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(false);
  const third = await bootstrap();
  expect(third.code).toBe(0);
  expect(third.log).toContain('starting ClickHouse');
  expect(third.log).not.toContain('starting Temporal');
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(true);
}, 180_000);
