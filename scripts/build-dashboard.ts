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
    // app.js and app.css: the names the pages link to.
    entryPoints: [
      { in: path.join(root, 'web/src/main.ts'), out: 'app' },
      { in: path.join(root, 'web/src/styles.css'), out: 'app' },
    ],
    outdir,
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    legalComments: 'linked',
    logLevel: 'warning',
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
