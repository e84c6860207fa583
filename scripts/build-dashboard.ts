/**
 * Builds the dashboard's browser app (web/) into generated/dashboard/ with
 * esbuild: one bundle (Chart.js included) and the stylesheet. Run by
 * scripts/bootstrap.sh on every start and test run; nothing to do by hand.
 */
import { build } from 'esbuild';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const outdir = path.join(root, 'generated/dashboard');

async function main() {
  await build({
    entryPoints: { app: path.join(root, 'web/src/main.ts'), 'app-style': path.join(root, 'web/src/styles.css') },
    outdir,
    entryNames: '[name]',
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    legalComments: 'linked',
    logLevel: 'warning',
  });
  // The stylesheet keeps a stable name for the pages' <link>.
  const { rename } = await import('node:fs/promises');
  await rename(path.join(outdir, 'app-style.css'), path.join(outdir, 'app.css'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
