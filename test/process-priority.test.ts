import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { OWN_SESSION } from '../dev/node-flags';

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

/**
 * The scheduling group a child reports (/proc/self/autogroup) after `lowerOwnPriority(nice)`, the child in a
 * session of its own or in this one. The file reads "/autogroup-<id> nice <n>", or nothing for the kernel's
 * default group (a session that never called setsid since boot, as in some CI containers).
 */
function autogroupAfter(nice: number, ownSession: boolean): Promise<string> {
  const script = `require(${JSON.stringify(path.join(root, 'lib/process-priority.ts'))}).lowerOwnPriority(${nice});
  console.log(require('node:fs').readFileSync('/proc/self/autogroup', 'utf8').trim());`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(ownSession ? OWN_SESSION : {}),
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`)))));
}

// Linux autogroups (kernel.sched_autogroup_enabled): a nice weighs only inside a session's group.
const ourGroup = () => readFileSync('/proc/self/autogroup', 'utf8').trim();
(existsSync('/proc/self/autogroup') ? describe : describe.skip)('lowerOwnPriority under autogroups', () => {
  it("lowers the scheduling group's nice of a process that leads its own session (how services are spawned: dev/node-flags.ts)", async () => {
    await expect(autogroupAfter(7, true)).resolves.toMatch(/^\/autogroup-\d+ nice 7$/);
  });

  it("leaves the group of its launcher's session alone (it would lower every process of it)", async () => {
    const before = ourGroup();
    await expect(autogroupAfter(7, false)).resolves.toBe(before);
    expect(ourGroup()).toBe(before);
  });
});
