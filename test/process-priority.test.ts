import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import path from 'node:path';

/** lib/process-priority.ts, in a child process (a priority once lowered cannot be raised back here). */
const root = path.resolve(__dirname, '..');
const niceOfEveryThread = (script: string): number[] =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
  const { readdirSync, readFileSync } = require('node:fs');
  const { lowerOwnPriority } = require(${JSON.stringify(path.join(root, 'lib/process-priority.ts'))});
  ${script}
  // Field 19 of /proc/<tid>/stat is the nice value (after the command name in parentheses).
  const nice = readdirSync('/proc/self/task').map((t) => { const s = readFileSync('/proc/self/task/' + t + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[16]); });
  console.log(JSON.stringify(nice));
`,
      ],
      { cwd: root, encoding: 'utf8' },
    ),
  );

describe('lowerOwnPriority', () => {
  // Children start at this process's nice value.
  const start = getPriority();
  it('sets every thread of the process, not only the main one', () => {
    const nice = niceOfEveryThread('lowerOwnPriority(7);');
    expect(nice.length).toBeGreaterThan(1);
    expect(new Set(nice)).toEqual(new Set([Math.max(start, 7)]));
  });

  it('never raises a priority, and 0 changes nothing', () => {
    expect(new Set(niceOfEveryThread('lowerOwnPriority(12); lowerOwnPriority(5);'))).toEqual(new Set([Math.max(start, 12)]));
    expect(new Set(niceOfEveryThread('lowerOwnPriority(0);'))).toEqual(new Set([start]));
  });
});
