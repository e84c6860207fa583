/**
 * `adctl --help` (and `-h`, `help`) prints the usage on stdout and exits 0: asking for help is
 * not a usage error. An unknown command still exits 2 with the usage on stderr.
 */
import { adctl } from './support/cli';

test.each(['--help', '-h', 'help'])('adctl %s: the usage, exit 0', async (flag) => {
  const run = await adctl(flag);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^usage:\n {2}adctl org create --name N/);
  expect(run.stderr).toBe('');
});

test('an unknown command: exit 2, the usage on stderr', async () => {
  const run = await adctl('--nonsense');
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^adctl: unknown command: --nonsense\nusage:/);
});
