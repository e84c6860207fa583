/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof; bench:auction writes them with
 * BENCH_CPU_PROF=<dir>): the top functions by self time, and the share of
 * time by package / source folder, so "where the time goes" is one command.
 *
 *   npx tsx bench/profile-top.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A frame's area: the npm package, node's own internals, or the project folder. */
function areaOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const built = /\.cache\/bench-auction\/([^/]+)\//.exec(url);
  if (built) return built[1];
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const project = /\/wt-[^/]+\/([^/]+)\/|\/main\/([^/]+)\/|\/(dist-bench|dist)\//.exec(url);
  return project ? (project[1] ?? project[2] ?? project[3]) : url;
}

const PROJECT_AREAS = new Set(['auction', 'lib', 'domain', 'bench', 'dev']);
const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/.*\.cache\/bench-auction\//, '')
    .replace(/.*node_modules\//, '')
    .replace(/.*\/wt-[^/]+\//, '')
    .replace(/.*\/main\//, '');

function summarize(file: string, top: number) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node from the sample stream (timeDeltas[i] is the time before sample i).
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfUs].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
  const busy = total - idle;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const key = `${functionName || '(anonymous)'}  ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  console.log(`${file}\n  busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled`);
  console.log('  top self time (share of busy time):');
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${key}`);
  // Inclusive time of the project's own functions (self time of everything they call), each counted once per stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (!PROJECT_AREAS.has(areaOf(url, functionName))) continue;
      const key = `${functionName || '(anonymous)'}  ${shortUrl(url)}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  console.log('  project functions by inclusive time:');
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${key}`);
  console.log('  by area:');
  for (const [key, us] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(us)}  ${key}`);
}

const [file, top] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-top.ts <file.cpuprofile> [top]');
  process.exit(2);
}
summarize(file, Number(top ?? 25));
