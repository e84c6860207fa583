import { existsSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';

/** Where `npm run build` writes the prebuilt workflow bundle: dist/workflow-bundle.js, beside dist/worker/. */
export const WORKFLOW_BUNDLE_FILE = 'workflow-bundle.js';

/**
 * The workflows a worker runs: the bundle `npm run build` made (scripts/build.ts, Temporal's
 * production recommendation: no webpack run at start, the code every copy runs is the code
 * that was built), else the one TEMPORAL_WORKFLOW_BUNDLE names (the tests' global setup
 * bundles once for every worker and api they start), else the workflows' source, bundled at
 * start (`npm start`).
 */
export function workflowSource(
  workerDir = __dirname,
  env: NodeJS.ProcessEnv = process.env,
): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const codePath = path.join(workerDir, '..', WORKFLOW_BUNDLE_FILE);
  if (existsSync(codePath)) return { workflowBundle: { codePath } };
  if (env.TEMPORAL_WORKFLOW_BUNDLE) return { workflowBundle: { codePath: env.TEMPORAL_WORKFLOW_BUNDLE } };
  return { workflowsPath: require.resolve('../workflows') };
}

/** The bundle a process's workers share (its two workers bundle the source once, not each). */
export type WorkflowBundle = Required<Pick<WorkerOptions, 'workflowBundle'>>;

/** The prebuilt bundle, else the workflows' source bundled now (once per process). */
export async function loadWorkflowBundle(workerDir = __dirname): Promise<WorkflowBundle> {
  const source = workflowSource(workerDir);
  if ('workflowBundle' in source) return source;
  return { workflowBundle: { code: await bundleWorkflows() } };
}

const ignore = () => undefined;

/** The workflows' source bundled now; the bundler's INFO chatter is dropped, its warnings and errors shown after `prefix`. */
export async function bundleWorkflows(prefix = 'workflow bundle'): Promise<string> {
  const logger = {
    log: ignore,
    trace: ignore,
    debug: ignore,
    info: ignore,
    warn: (message: string) => console.warn(`${prefix}: ${message}`),
    error: (message: string) => console.error(`${prefix}: ${message}`),
  };
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger });
  return code;
}
