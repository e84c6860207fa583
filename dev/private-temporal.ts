/**
 * A Temporal development server of a benchmark's own, in a fresh SQLite file
 * with the bootstrap's settings (WAL, no sync per commit), ended with the
 * benchmark. The shared development server keeps every workflow earlier runs
 * left (each campaign created waits for a reviewer forever), and it slows as it
 * fills (bench/history.md, campaign-create). A fresh server is what CI and a
 * new clone run on, so runs compare.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CAMPAIGN_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { endWithParent, freePort } from './processes';

export interface PrivateTemporal {
  address: string;
  stop(): Promise<void>;
}

/** The `temporal` CLI the bootstrap installs with pip. */
function temporalCli(): string {
  const scripts = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))'], { encoding: 'utf8' }).trim();
  return path.join(scripts, 'temporal');
}

/** Starts the server and waits (60 s at most) until it answers; the caller sets TEMPORAL_ADDRESS before loading any Temporal client. */
export async function startPrivateTemporal(): Promise<PrivateTemporal> {
  const cli = temporalCli();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-temporal-'));
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const child = spawn(
    cli,
    [
      ...['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(httpPort), '--metrics-port', String(metricsPort)],
      ...['--headless', '--log-level', 'warn', '--db-filename', path.join(dir, 'temporal.sqlite')],
      ...['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'],
      ...CAMPAIGN_SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ],
    { stdio: 'ignore' },
  );
  endWithParent(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    if (child.exitCode !== null) break;
    try {
      execFileSync(cli, ['operator', 'cluster', 'health', '--address', address], { stdio: 'ignore' });
      return { address, stop };
    } catch {
      // not answering yet
    }
  }
  await stop();
  throw new Error(`the private Temporal server on ${address} did not start`);
}
