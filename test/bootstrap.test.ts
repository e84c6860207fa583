import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { textModelDir } from '../domain/understanding/text-model';
import { freePort } from '../dev/processes';

/**
 * The bootstrap from a fresh state: a PostgreSQL cluster, a data folder and
 * ports of its own, so it creates and starts a new PostgreSQL cluster, a new
 * ClickHouse and a new Temporal dev server beside the ones the suite uses.
 * (The Debian packages themselves are installed once per machine.)
 */
const root = path.resolve(__dirname, '..');
const dataDir = mkdtempSync('/tmp/adplatform-bootstrap-');
chmodSync(dataDir, 0o755); // ClickHouse runs as its own user and must reach its folder
/** Unique per run, so two runs on one machine never meet, and anything by this name is ours. */
const pgCluster = `adplatform_bootstrap_${process.pid}_${Date.now()}`;
const pgVersion = execFileSync('ls', ['/usr/lib/postgresql']).toString().trim().split('\n').sort().pop()!;
/** Free loopback ports, picked in beforeAll. */
const ports = { pg: 0, chHttp: 0, chTcp: 0, temporal: 0, temporalUi: 0 };
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const taken = new Set<number>();
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) {
    // Below the ephemeral range: the services bind them half a minute from now.
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    ports[name] = port;
  }
  env = {
    ...process.env,
    ADPLATFORM_DATA_DIR: dataDir,
    ADPLATFORM_CLICKHOUSE_HTTP_PORT: String(ports.chHttp),
    ADPLATFORM_CLICKHOUSE_TCP_PORT: String(ports.chTcp),
    ADPLATFORM_TEMPORAL_PORT: String(ports.temporal),
    ADPLATFORM_TEMPORAL_UI_PORT: String(ports.temporalUi),
    ADPLATFORM_PG_CLUSTER: pgCluster,
    ADPLATFORM_PG_PORT: String(ports.pg),
    CLICKHOUSE_DATABASE: 'adplatform_bootstrap_test',
    // The machine's text model, already installed: this test's data folder would distil it again (minutes).
    TEXT_MODEL_DIR: textModelDir(),
  };
  delete env.DATABASE_URL;
  delete env.CLICKHOUSE_URL;
  delete env.TEMPORAL_ADDRESS;
});

/** One run of the bootstrap; a failed run fails the test with its log, so the cause is in the output. */
function bootstrap(): Promise<{ log: string }> {
  return new Promise((resolve, reject) => {
    execFile('bash', [path.join(root, 'scripts/bootstrap.sh'), '--test'], { cwd: root, env, timeout: 150_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`the bootstrap failed (${err.code ?? err.signal}):\n${stdout}${stderr}`));
      else resolve({ log: stdout + stderr });
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
  return fetch(url).then(
    (r) => r.ok,
    () => false,
  );
}

const pgReady = () => {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', String(ports.pg)]);
    return true;
  } catch {
    return false;
  }
};
const clusterExists = () =>
  execFileSync('pg_lsclusters', ['-h'])
    .toString()
    .split('\n')
    .some((line) => line.split(/\s+/)[1] === pgCluster);

// Only what this run created: its own cluster (unique name), its own processes (found by its own data folder).
afterAll(() => {
  if (clusterExists()) execFileSync('pg_dropcluster', ['--stop', pgVersion, pgCluster], { stdio: 'ignore' });
  for (const pid of [...clickhousePids(), ...temporalPids()]) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test('creates and starts PostgreSQL, ClickHouse and Temporal from nothing, health-checked, and applies the schemas', async () => {
  expect(clusterExists()).toBe(false);
  const first = await bootstrap();
  expect(first.log).toContain(`creating PostgreSQL ${pgVersion} cluster ${pgCluster}`);
  expect(first.log).toContain('starting PostgreSQL');
  expect(first.log).toContain('starting ClickHouse');
  expect(first.log).toContain('starting Temporal dev server');
  expect(first.log).toContain('services ready');
  expect(pgReady()).toBe(true);
  // Migrated: the schema's tables exist in the new cluster's test database.
  const migrated = execFileSync('su', [
    'postgres',
    '-c',
    `psql -p ${ports.pg} -d adplatform_test -tAc "SELECT count(*) FROM _prisma_migrations WHERE finished_at IS NOT NULL"`,
  ])
    .toString()
    .trim();
  expect(Number(migrated)).toBeGreaterThanOrEqual(3);
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(true);
  expect(await healthy(`http://127.0.0.1:${ports.temporalUi}/`)).toBe(true);
  const tables = await fetch(`http://127.0.0.1:${ports.chHttp}/?query=${encodeURIComponent('SHOW TABLES FROM adplatform_bootstrap_test')}`).then((r) =>
    r.text(),
  );
  expect(tables).toContain('delivery_events');
  expect(tables).toContain('delivery_hourly');
  expect(clickhousePids()).toHaveLength(1);
  expect(temporalPids()).toHaveLength(1);
}, 180_000);

test('running it twice changes nothing', async () => {
  const before = { ch: clickhousePids(), temporal: temporalPids() };
  const second = await bootstrap();
  expect(second.log).not.toContain('starting');
  expect({ ch: clickhousePids(), temporal: temporalPids() }).toEqual(before);
}, 180_000);

test('a stopped service is started again', async () => {
  execFileSync('pg_ctlcluster', [pgVersion, pgCluster, 'stop']);
  expect(pgReady()).toBe(false);
  for (const pid of clickhousePids()) process.kill(Number(pid), 'SIGKILL');
  for (let i = 0; i < 50 && clickhousePids().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(false);
  const third = await bootstrap();
  expect(third.log).toContain('starting PostgreSQL');
  expect(third.log).not.toContain('creating PostgreSQL');
  expect(third.log).toContain('starting ClickHouse');
  expect(third.log).not.toContain('starting Temporal');
  expect(await healthy(`http://127.0.0.1:${ports.chHttp}/ping`)).toBe(true);
  expect(pgReady()).toBe(true);
}, 180_000);
