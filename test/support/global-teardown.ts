import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  await globalThis.__localStack?.stop();
  if (process.env.TEMPORAL_WORKFLOW_BUNDLE) rmSync(process.env.TEMPORAL_WORKFLOW_BUNDLE, { force: true });
}
