import { existsSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Runtime, type WorkerOptions } from '@temporalio/worker';

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

/** The bundle a process's workers share (its two workers bundle the source once, not each). */
export type WorkflowBundle = Required<Pick<WorkerOptions, 'workflowBundle'>>;

/** The prebuilt bundle, else the workflows' source bundled now (once per process). */
export async function loadWorkflowBundle(workerDir = __dirname): Promise<WorkflowBundle> {
  const source = workflowSource(workerDir);
  if ('workflowBundle' in source) return source;
  // The bundler's progress is INFO chatter: the runtime's logger (WARN unless WORKER_LOG_LEVEL) filters it.
  return { workflowBundle: await bundleWorkflowCode({ workflowsPath: source.workflowsPath, logger: Runtime.instance().logger }) };
}
