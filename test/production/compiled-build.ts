/**
 * The compiled build the production tests run (`npm run build`, dist/): reused while it is
 * newer than every source file it is made from, else built again. `npm test` type-checks the
 * whole tree first, so the tests build with `--no-check` (tsc's emit alone: about half the time).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService, type ServiceProcess } from '../../dev/processes';

export const root = path.resolve(__dirname, '../..');
export const dist = path.join(root, 'dist');
const BUILD_INFO = path.join(dist, 'BUILD_INFO.json');

/** What the build reads: the compiled folders, the generated sources, prisma/, the dashboard's source, the configs. */
const SOURCES = [
  'activities',
  'api',
  'auction',
  'bin',
  'dev',
  'domain',
  'generated',
  'jobs',
  'lib',
  'prisma',
  'scripts',
  'use-cases',
  'web/src',
  'worker',
  'workflows',
  'package.json',
  'prisma.config.ts',
  'temporal.config.ts',
  'tsconfig.json',
  'tsconfig.build.json',
];

function newestMtime(entry: string): number {
  const full = path.join(root, entry);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((newest, e) => Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs), 0);
}

export function buildIsFresh(): boolean {
  if (!existsSync(BUILD_INFO)) return false;
  const builtAt = statSync(BUILD_INFO).mtimeMs;
  return SOURCES.every((entry) => newestMtime(entry) < builtAt);
}

/** Held while a test builds: two test files (jest runs two at a time) must not rebuild dist/ under each other. */
const LOCK = path.join(tmpdir(), `adplatform-dist-build-${root.replace(/\W/g, '_')}.lock`);
const LOCK_STALE_MS = 300_000;

/** dist/ as `npm run build` makes it, from the current tree; one builder at a time, the others wait and reuse its build. */
export function ensureBuild(): void {
  for (const deadline = Date.now() + LOCK_STALE_MS; ;) {
    if (buildIsFresh()) return;
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // Someone else is building (or died building: a lock older than the bound is taken over).
      if (Date.now() > deadline || Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > LOCK_STALE_MS)
        rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    if (buildIsFresh()) return;
    execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build.ts', '--no-check'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** How each compiled service is started: the variable that takes its port, the line that says it is ready. */
const LAUNCH = {
  // Ready once its creation worker is (on the prebuilt bundle), or has failed to start.
  api: { portVariable: 'PORT', ready: /api creation worker (ready|unavailable)/ },
  auction: { portVariable: 'AUCTION_PORT', ready: /auction listening/ },
  worker: { portVariable: 'UNUSED_PORT', ready: /worker ready on task queue/ },
} as const;
export type CompiledService = keyof typeof LAUNCH;

/** A compiled service started by serveCompiled. */
export type Compiled = ServiceProcess;

/** `node dist/scripts/serve.js <service>` (what the image runs) over this environment's stores, once it says it is ready. */
export function serveCompiled(service: CompiledService, env: NodeJS.ProcessEnv = {}): Promise<Compiled> {
  const { portVariable, ready } = LAUNCH[service];
  const serve = path.join(dist, 'scripts/serve.js');
  return startService({ entry: `dist/scripts/serve.js ${service}`, argv: [serve, service], ready, portVariable, env: { NODE_ENV: 'test', ...env } });
}
