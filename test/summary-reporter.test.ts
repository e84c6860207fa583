import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The closing line of a run tells the truth: jest runs tiny fixture suites in a
 * temp folder with test/support/summary-reporter.js, and the test reads the very
 * last line it printed.
 */
const root = path.resolve(__dirname, '..');
const jestBin = path.join(root, 'node_modules/.bin/jest');
const reporter = path.join(root, 'test/support/summary-reporter.js');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function runJest(files: Record<string, string>): Promise<{ code: number; lastLine: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'summary-reporter-'));
  dirs.push(dir);
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
  const config = {
    rootDir: dir,
    testMatch: ['**/*.spec.js'],
    testEnvironment: 'node',
    transform: {},
    reporters: [reporter],
    cacheDirectory: path.join(dir, '.cache'),
    watchman: false,
  };
  return new Promise((resolve) => {
    execFile(jestBin, ['--ci', '--config', JSON.stringify(config)], { cwd: dir, timeout: 60_000 }, (err, stdout) => {
      const lines = stdout.trimEnd().split('\n');
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, lastLine: lines[lines.length - 1] });
    });
  });
}

test('an afterAll that throws after every test passed counts as a failure in the last line', async () => {
  const run = await runJest({
    'teardown.spec.js': `
      test('passes', () => expect(1).toBe(1));
      test.skip('skipped', () => undefined);
      afterAll(() => { throw new Error('teardown failed'); });`,
  });
  expect(run.code).not.toBe(0);
  expect(run.lastLine).toBe('Tests: 1 passed, 1 failed, 1 skipped');
});

test('a suite that fails to load counts as a failure; failed tests elsewhere still count one each', async () => {
  const run = await runJest({
    'broken.spec.js': `throw new Error('cannot load');`,
    'red.spec.js': `test('a', () => expect(1).toBe(2)); test('b', () => expect(1).toBe(2)); test('c', () => undefined);`,
  });
  expect(run.code).not.toBe(0);
  expect(run.lastLine).toBe('Tests: 1 passed, 3 failed, 0 skipped');
});

test('a green run says 0 failed', async () => {
  const run = await runJest({ 'green.spec.js': `test('passes', () => expect(1).toBe(1));` });
  expect(run.code).toBe(0);
  expect(run.lastLine).toBe('Tests: 1 passed, 0 failed, 0 skipped');
});
