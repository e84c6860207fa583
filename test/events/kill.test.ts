/**
 * Durability under SIGKILL: the api and the worker run as child processes (tsx)
 * while events are being sent; both are killed mid-stream, restarted, and the
 * worker is killed once more. Afterwards every event that got a 204 is in
 * ClickHouse exactly once, and no event is there twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { endBackgroundJobs } from '../../worker/jobs';
import { freePort } from '../../dev/processes';
import { createDb } from '../../lib/db';
import { organizationIdOf } from '../support/fixtures';
import { newOrg } from '../support/harness';
import { until } from '../support/wait';
import { clickhouse, waitForEvents } from './support';

jest.setTimeout(300_000);

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const db = createDb(undefined, 2);
const children = new Set<ChildProcess>();

/** Spawns `tsx <script>` and resolves once it prints `ready`. */
function spawnProcess(script: string, env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  // Its own process group, so a SIGKILL reaches tsx and the node process it runs the script in.
  const child = spawn(tsx, [path.join(root, script)], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      if (ready.test(output)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before ready:\n${output}`)));
  });
}

function sigkill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL'); // the whole group: tsx runs the script in a child of its own
  });
}

const workerTaskQueue = `events-kill-${process.pid}-${Date.now()}`;
afterAll(async () => {
  await Promise.all([...children].map(sigkill));
  await endBackgroundJobs(workerTaskQueue, 'test over');
  await db.$disconnect();
  await clickhouse.close();
});

it('every acknowledged event reaches ClickHouse exactly once across SIGKILLs of api and worker', async () => {
  const org = await newOrg(db);
  const orgId = await organizationIdOf(db, org);
  // The api comes back on it after each kill.
  const port = await freePort();
  const apiEnv = { PORT: String(port), NODE_ENV: 'test' };
  const workerEnv = { TEMPORAL_TASK_QUEUE: workerTaskQueue, NODE_ENV: 'test' };
  const startApi = () => spawnProcess('api/server.ts', apiEnv, /api listening/);
  const startWorker = () => spawnProcess('worker/main.ts', workerEnv, /worker ready/);
  let api = await startApi();
  let worker = await startWorker();

  const acknowledged = new Set<string>(); // markers of events that got 204
  let sent = 0;
  let failed = 0;
  let stop = false;
  async function sender(lane: number) {
    for (let n = 0; !stop; n++) {
      // Half carry an event_id (deduplicated), half only a unique session_id (so a pipeline double insert would show).
      const marker = `m-${lane}-${n}`;
      const event = n % 2 ? { event_name: 'kill_test', event_id: marker, session_id: marker } : { event_name: 'kill_test', session_id: marker };
      sent += 1;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/collect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(event),
        });
        if (res.status === 204) acknowledged.add(marker);
        // A retry of an acknowledged event with an event_id must not add a row.
        if (res.status === 204 && event.event_id && n % 10 === 1) {
          await fetch(`http://127.0.0.1:${port}/api/collect`, {
            method: 'POST',
            headers: { authorization: `Bearer ${org.api_key}`, 'content-type': 'application/json' },
            body: JSON.stringify(event),
          });
        }
      } catch {
        failed += 1;
        await new Promise((r) => setTimeout(r, 50)); // the api is down: keep trying
      }
    }
  }
  const lanes = Array.from({ length: 8 }, (_, lane) => sender(lane));

  await until(() => acknowledged.size >= 400, '400 acknowledged events', Infinity);
  await Promise.all([sigkill(api), sigkill(worker)]);
  [api, worker] = await Promise.all([startApi(), startWorker()]);
  const failedWhileDown = failed;
  const afterRestart = acknowledged.size;
  await until(() => acknowledged.size >= afterRestart + 400, '400 more after the restart', Infinity);
  await sigkill(worker);
  worker = await startWorker();
  const afterSecond = acknowledged.size;
  await until(() => acknowledged.size >= afterSecond + 200, '200 more after the second kill', Infinity);
  stop = true;
  await Promise.all(lanes);

  // Wait for the pipeline to deliver every acknowledged event.
  const rows = await waitForEvents(orgId, (stored) => {
    const sessions = new Set(stored.map((r) => r.session_id));
    return [...acknowledged].every((m) => sessions.has(m));
  });
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.session_id, (counts.get(r.session_id) ?? 0) + 1);
  const doubled = [...counts].filter(([, c]) => c > 1);
  expect(doubled).toEqual([]);
  expect([...acknowledged].filter((m) => counts.get(m) !== 1)).toEqual([]);
  expect(rows.every((r) => r.channel === 'server' && r.event_name === 'kill_test')).toBe(true);
  expect(failedWhileDown).toBeGreaterThan(0); // the api really was down
  console.log(`kill test: sent ${sent}, acknowledged ${acknowledged.size}, failed ${failed}, stored ${rows.length}`);
});
