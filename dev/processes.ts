/**
 * Real service processes for tests and benchmarks: `node <its flags> --import tsx <entry>` on a free
 * loopback port, ready when it prints its ready line, stopped with SIGTERM and,
 * past a bound, SIGKILL (a stop never waits forever).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import path from 'node:path';
import { OWN_SESSION, serviceNodeArgs } from './node-flags';

const root = path.resolve(__dirname, '..');

/** Listens on a loopback port and closes again: the port, or null when it is taken. */
function probePort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer().once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      server.close(() => resolve(port));
    });
  });
}

/**
 * A loopback port that is free now and lies below the kernel's ephemeral range (20,000 up to its
 * start), for every service a test or bench starts: the service binds it only seconds later, once
 * it has loaded, or again after a restart. A port from `listen(0)` lies inside that range, where
 * the rest of the suite's servers and client connections may take it meanwhile (a bootstrap run
 * failed so: its Temporal's UI port was taken).
 */
export async function freePort(): Promise<number> {
  const lowestEphemeral = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  if (!(lowestEphemeral > 21_000)) throw new Error(`no port range below the ephemeral ports (they start at ${lowestEphemeral})`);
  for (;;) {
    const free = await probePort(20_000 + Math.floor(Math.random() * (lowestEphemeral - 20_000)));
    if (free !== null) return free;
  }
}

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Its metrics endpoint (an internal port of its own, lib/metrics-server.ts), once it has printed it. */
  metricsUrl(): string | null;
  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. On
   * SIGTERM the api finishes its background writes and closes, each step bounded
   * (api/server.ts), so the default grace outlasts its whole shutdown.
   */
  stop(graceMs?: number): Promise<void>;
}

export interface ServiceOptions {
  /** Entry file relative to the repository root, e.g. `api/server.ts`. */
  entry: string;
  /** Node's arguments as they are (e.g. a compiled `dist/scripts/serve.js api`): no tsx, no service flags. */
  argv?: string[];
  /** Line that says the service is ready. */
  ready: RegExp;
  /** Environment variable that receives the port (PORT, AUCTION_PORT). */
  portVariable: string;
  env?: NodeJS.ProcessEnv;
  /** Which service's node flags it runs with (dev/node-flags.ts). */
  service?: string;
  /** More node flags for the service process (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  startTimeoutMs?: number;
}

/**
 * Ends `child` when this process exits, normally or by process.exit() (a bench that fails
 * part-way): orphans would poll Temporal and run their jobs, skewing the next runs. `signal`
 * SIGTERM for a service that drains on it, SIGKILL otherwise. A child in its own session
 * (OWN_SESSION) does not get the terminal's Ctrl-C, so this process then exits on it.
 */
export function endWithParent(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  exitOnSignals();
  const end = () => child.kill(signal);
  process.once('exit', end);
  child.once('exit', () => process.off('exit', end));
}

let exitingOnSignals = false;
/** SIGINT, SIGTERM and SIGHUP end this process through process.exit() (so its 'exit' hooks run), where nothing else of it handles them. */
function exitOnSignals(): void {
  if (exitingOnSignals) return;
  exitingOnSignals = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    if (process.listenerCount(signal) === 0) process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const port = await freePort();
  const argv = options.argv ?? serviceNodeArgs(options.service ?? '', path.join(root, options.entry), options.nodeArgs);
  const child = spawn(process.execPath, argv, {
    cwd: root,
    // Metrics on any free port unless the caller names one: several copies of a service may run side by side.
    env: {
      ...process.env,
      METRICS_PORT: '0',
      AUCTION_METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      ...options.env,
      [options.portVariable]: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...OWN_SESSION,
  });
  endWithParent(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    output += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.entry} did not start:\n${output}`)), options.startTimeoutMs ?? 60_000);
    const onData = () => {
      if (options.ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.entry} exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => output,
    metricsUrl: () => /metrics on (http:\/\/\S+)/.exec(output)?.[1] ?? null,
    stop: (graceMs = STOP_GRACE_MS) => stopProcess(child, graceMs),
  };
}

/** Longer than the api's bounded shutdown: three steps of config.timeouts.closeMs (5 s by default). */
const STOP_GRACE_MS = 20_000;

export function stopProcess(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The api process (`api/server.ts`) on a free port, over the databases of this environment;
 * ready once its creation worker is (or has failed to start), unless API_CREATION_WORKER=off.
 */
export const startApiProcess = (env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []) => {
  const creationWorker = (env.API_CREATION_WORKER ?? process.env.API_CREATION_WORKER) !== 'off';
  const ready = creationWorker ? /api creation worker (ready|unavailable)/ : /api listening/;
  return startService({ service: 'api', entry: 'api/server.ts', ready, portVariable: 'PORT', env, nodeArgs });
};

/** The auction process (`auction/server.ts`) on a free port, over the databases of this environment. */
export const startAuctionProcess = (env: NodeJS.ProcessEnv = {}) =>
  startService({ service: 'auction', entry: 'auction/server.ts', ready: /auction listening/, portVariable: 'AUCTION_PORT', env });
