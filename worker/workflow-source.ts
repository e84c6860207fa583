import { existsSync } from 'node:fs';
import path from 'node:path';

/** Where `npm run build` writes the prebuilt workflow bundle: dist/workflow-bundle.js, beside dist/worker/. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

/**
 * The workflows a worker runs: the bundle `npm run build` made (scripts/build.ts, Temporal's
 * production recommendation: no webpack run at start, the code every copy runs is the code
 * that was built), else the workflows' source, bundled at start (`npm start`, tests).
 */
export function workflowSource(workerDir = __dirname): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const codePath = path.join(workerDir, '..', WORKFLOW_BUNDLE_FILE);
  if (existsSync(codePath)) return { workflowBundle: { codePath } };
  return { workflowsPath: require.resolve('../workflows') };
}
