/**
 * Builds the chat host's SDK packages (sdk/, docs/sdk.md) into each package's dist/,
 * ready for `npm pack`, and prints the browser code's size, minified and gzipped,
 * against its budget (a build over budget fails):
 *
 * - sdk/core: dist/index.js (ES module), dist/chat-ads.global.js (a script tag's `ChatAds`),
 *   dist/*.d.ts; at most 12 KB min+gzip.
 * - sdk/react: dist/index.js (`react` and `@chat-ads/sdk` left to the host's bundler), its
 *   declarations; at most 2 KB min+gzip on top of the core.
 * - sdk/node: dist/index.js (CommonJS) and its declarations.
 *
 * Run by `npm run build` (scripts/build.ts), or alone: `tsx scripts/build-sdk.ts`.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';

const root = path.resolve(__dirname, '..');
const sdk = path.join(root, 'sdk');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

export const BUDGETS = { core: 12 * 1024, react: 2 * 1024 };

const browser: BuildOptions = { bundle: true, minify: true, target: ['es2019'], legalComments: 'none', logLevel: 'error', write: false };

/** The core as one minified ES module, in memory (what the budget measures). */
export async function bundleCore(format: 'esm' | 'iife' = 'esm'): Promise<string> {
  const out = await build({ ...browser, entryPoints: [path.join(sdk, 'core/src/index.ts')], format, globalName: 'ChatAds' });
  return out.outputFiles![0].text;
}

const gzipped = (code: string) => gzipSync(code, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function declarations(pkg: string) {
  execFileSync(tsc, ['-p', path.join(sdk, pkg), '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', path.join(sdk, pkg, 'dist')], {
    cwd: root,
    stdio: 'inherit',
  });
}

export async function buildSdk(): Promise<{ core: number; react: number }> {
  for (const pkg of ['core', 'react', 'node']) rmSync(path.join(sdk, pkg, 'dist'), { recursive: true, force: true });
  const core = path.join(sdk, 'core');
  await build({ ...browser, write: true, entryPoints: [path.join(core, 'src/index.ts')], format: 'esm', outfile: path.join(core, 'dist/index.js') });
  await build({
    ...browser,
    write: true,
    entryPoints: [path.join(core, 'src/index.ts')],
    format: 'iife',
    globalName: 'ChatAds',
    outfile: path.join(core, 'dist/chat-ads.global.js'),
  });
  declarations('core');
  const react = path.join(sdk, 'react');
  await build({
    ...browser,
    write: true,
    entryPoints: [path.join(react, 'src/index.tsx')],
    format: 'esm',
    jsx: 'automatic',
    external: ['react', 'react/jsx-runtime', '@chat-ads/sdk'],
    outfile: path.join(react, 'dist/index.js'),
  });
  declarations('react');
  await build({
    entryPoints: [path.join(sdk, 'node/src/index.ts')],
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    outfile: path.join(sdk, 'node/dist/index.js'),
    logLevel: 'error',
  });
  declarations('node');

  const sizes = {
    core: gzipped(await bundleCore()),
    react: gzipped(
      (
        await build({
          ...browser,
          entryPoints: [path.join(react, 'src/index.tsx')],
          format: 'esm',
          jsx: 'automatic',
          external: ['react', 'react/jsx-runtime', '@chat-ads/sdk'],
        })
      ).outputFiles![0].text,
    ),
  };
  console.log(`build: sdk core ${kb(sizes.core)} min+gzip (budget ${kb(BUDGETS.core)}), react +${kb(sizes.react)} (budget ${kb(BUDGETS.react)})`);
  const over = (Object.keys(BUDGETS) as (keyof typeof BUDGETS)[]).filter((name) => sizes[name] > BUDGETS[name]);
  if (over.length) throw new Error(`sdk over its size budget: ${over.join(', ')}`);
  return sizes;
}

if (require.main === module) {
  buildSdk().catch((err: unknown) => {
    console.error(`sdk build failed: ${(err as Error).message}`);
    process.exit(1);
  });
}
