/**
 * `npm run build`: the services compiled to JavaScript in dist/, run by `npm run serve`
 * (scripts/serve.ts) with node alone, production dependencies only.
 *
 * - Type check: tsc over the entries (tsconfig.build.json); `--no-check` skips it for
 *   callers that checked the tree already (npm test's production tests).
 * - Emit: esbuild, one CommonJS file per source file the entries reach (found by esbuild's
 *   own resolution, so dynamic imports count), laid out as in the repository
 *   (dist/api/server.js, ...), so paths read at run time relative to a module resolve as in
 *   the source tree. Imported JSON (domain/safety/classifier/model-weights.json) is copied beside its module.
 * - What the code reads from disk is copied where it looks: the dashboard's browser bundle
 *   (generated/dashboard, api/dashboard/routes.ts), the content taxonomy (domain/understanding/data), prisma/ (the schema and migrations
 *   `serve migrate` applies) and the PostgreSQL routines scripts/pg-routines.ts reads (scripts/routines.ts).
 * - The workflows are bundled once here (dist/workflow-bundle.js, worker/workflow-source.ts):
 *   the worker loads that bundle instead of running webpack at every start.
 * - dist/BUILD_INFO.json last: a build without it is incomplete.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleWorkflows, WORKFLOW_BUNDLE_FILE } from '../worker/workflow-source';
import { buildSdk } from './build-sdk';
import { ROUTINE_FILES } from './routines';

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const BUILD_INFO_FILE = 'BUILD_INFO.json';
const PRISMA_CONFIG = 'prisma.config.ts';

/** The entries: tsconfig.build.json's `files` (the services, the CLI, the migrations, `serve`). */
const entries = (JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { files: string[] }).files;

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((newest, e) => Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs), 0);
}

async function step(name: string, run: () => unknown) {
  const started = Date.now();
  await run();
  console.log(`build: ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** generated/ is not in git: a fresh clone (the image's builder stage) makes the Prisma client and the dashboard bundle here. */
function generateSources() {
  const client = path.join(root, 'generated/prisma/client.ts');
  if (!existsSync(client) || statSync(path.join(root, 'prisma/schema.prisma')).mtimeMs > statSync(client).mtimeMs) {
    execFileSync(bin('prisma'), ['generate'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const dashboard = path.join(root, 'generated/dashboard/app.js');
  if (!existsSync(dashboard) || newestMtime(path.join(root, 'web/src')) > statSync(dashboard).mtimeMs) {
    execFileSync(bin('tsx'), ['scripts/build-dashboard.ts'], { cwd: root, stdio: 'inherit' });
  }
}

/** Every repository file the entries import, transitively (packages stay external): the files esbuild emits one by one. */
async function sourceFiles(): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: entries.map((entry) => path.join(root, entry)),
    absWorkingDir: root,
    bundle: true,
    packages: 'external',
    platform: 'node',
    write: false,
    metafile: true,
    outdir: dist,
    logLevel: 'error',
  });
  return Object.keys(metafile.inputs);
}

async function emit() {
  const files = await sourceFiles();
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && f !== PRISMA_CONFIG).map((f) => path.join(root, f)),
    absWorkingDir: root,
    outbase: root,
    outdir: dist,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'error',
  });
  // The Prisma CLI loads its config as an ES module (a CommonJS one reaches it as `{ default: { default } }`).
  await build({
    entryPoints: [path.join(root, PRISMA_CONFIG)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: path.join(dist, 'prisma.config.mjs'),
    logLevel: 'error',
  });
  for (const json of files.filter((f) => f.endsWith('.json'))) {
    mkdirSync(path.dirname(path.join(dist, json)), { recursive: true });
    copyFileSync(path.join(root, json), path.join(dist, json));
  }
}

function copyRunTimeFiles() {
  cpSync(path.join(root, 'generated/dashboard'), path.join(dist, 'generated/dashboard'), { recursive: true });
  // The IAB Content Taxonomy table the bid-request signals read (domain/understanding/content-taxonomy.ts).
  cpSync(path.join(root, 'domain/understanding/data'), path.join(dist, 'domain/understanding/data'), { recursive: true });
  for (const entry of ['schema.prisma', 'migrations']) {
    cpSync(path.join(root, 'prisma', entry), path.join(dist, 'prisma', entry), { recursive: true });
  }
  for (const file of ROUTINE_FILES) {
    mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
    copyFileSync(path.join(root, file), path.join(dist, file));
  }
}

async function writeWorkflowBundle() {
  writeFileSync(path.join(dist, WORKFLOW_BUNDLE_FILE), await bundleWorkflows('build: workflow bundle'));
}

async function main() {
  rmSync(dist, { recursive: true, force: true });
  await step('generated sources', generateSources);
  if (!process.argv.includes('--no-check')) {
    await step('type check', () => execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--noEmit'], { cwd: root, stdio: 'inherit' }));
  }
  await step('emit', emit);
  await step('run-time files', copyRunTimeFiles);
  await step('workflow bundle', writeWorkflowBundle);
  // The chat host's SDK packages (sdk/*/dist, for npm pack), their sizes printed against the budgets.
  await step('sdk', buildSdk);
  writeFileSync(path.join(dist, BUILD_INFO_FILE), `${JSON.stringify({ builtAt: new Date().toISOString(), node: process.version }, null, 2)}\n`);
  console.log('build: dist/ ready (npm run serve -- api|auction|worker|migrate)');
}

main().catch((err: unknown) => {
  console.error(`build failed: ${(err as Error).message}`);
  process.exit(1);
});
