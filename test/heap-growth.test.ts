import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * lib/heap-growth.ts, in child processes (a V8 flag, once set, stays for the
 * process): a program with a steady live heap that keeps promoting short-lived
 * garbage runs far fewer full collections with more room to grow. (Two set
 * values, not the default: V8's own factor moves between ~1.1 and 4 with the
 * allocation rate.)
 */
const root = path.resolve(__dirname, '..');
function markCompacts(percent: number): number {
  const out = execFileSync(process.execPath, ['--trace-gc', '--import', 'tsx', '-e', `
    const { setHeapGrowth } = require(${JSON.stringify(path.join(root, 'lib/heap-growth.ts'))});
    setHeapGrowth(${percent});
    // ~30 MB that stays, like the auction's modules and index.
    const live = Array.from({ length: 250000 }, (_, i) => ({ i, text: 'entry ' + i }));
    // Objects that live through two young collections, then die: they are promoted.
    const ring = new Array(50000);
    for (let i = 0; i < 4000000; i += 1) ring[i % ring.length] = { i, list: [i, i + 1] };
    console.log('live', live.length);
  `], { cwd: root, encoding: 'utf8' });
  return (out.match(/Mark-Compact/g) ?? []).length;
}

describe('setHeapGrowth', () => {
  it('takes effect when set at start-up: more room, fewer full collections', () => {
    const tight = markCompacts(50);
    const roomy = markCompacts(300);
    expect(tight).toBeGreaterThanOrEqual(8);
    expect(roomy).toBeLessThanOrEqual(tight / 2);
  });
});
