/**
 * bench/results.jsonl stays machine-readable and bench/README.md's table shows
 * each bench's latest result (the format is in bench/README.md, "Results").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const readme = readFileSync(path.join(root, 'bench/README.md'), 'utf8');
const jsonl = readFileSync(path.join(root, 'bench/results.jsonl'), 'utf8');
const scripts = Object.keys((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

interface Result {
  date: string;
  commit: string;
  bench: string;
  line: string | null;
  goal_met: string;
  note: string;
}

/** The benches table: one row per bench, its cells (a `\|` inside a cell is not a column). */
const rows = readme
  .slice(readme.indexOf('## The benches'), readme.indexOf('## Results'))
  .split('\n')
  .filter((l) => l.startsWith('| `'))
  .map((l) =>
    l
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim()),
  );
/** The name each bench's line starts with, from the table's line column. */
const benchOf = (row: string[]) => /^`([a-z_-]+) /.exec(row[2])?.[1];

const lines = jsonl.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
const results = lines.map((l) => JSON.parse(l) as Result);

test('the file: one JSON object a line, every field as documented, oldest first', () => {
  expect(jsonl.endsWith('\n')).toBe(true);
  expect(lines.every((l) => l.trim() !== '')).toBe(true);
  const names = new Set(rows.map(benchOf));
  let previous = '';
  for (const r of results) {
    expect(Object.keys(r).sort()).toEqual(['bench', 'commit', 'date', 'goal_met', 'line', 'note']);
    expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(`${r.date}T00:00:00Z`).toISOString().slice(0, 10)).toBe(r.date);
    expect(r.date >= previous).toBe(true);
    previous = r.date;
    expect(r.commit).toMatch(/^[0-9a-f]{7,40}(, [0-9a-f]{7,40})*$/);
    expect([r.bench, names.has(r.bench)]).toEqual([r.bench, true]);
    if (r.line !== null) expect(r.line).toMatch(new RegExp(`^${r.bench}( [a-z][a-z0-9_]*=[^\\s=]+)+$`));
    expect(typeof r.goal_met).toBe('string');
    expect(r.note.length).toBeGreaterThan(0);
  }
});

test("the table: a row for every bench script, each with its bench's latest line", () => {
  for (const script of scripts.filter((s) => s.startsWith('bench:')))
    expect(rows.map((r) => r[0]).filter((c) => c.startsWith(`\`${script}\``))).toHaveLength(1);
  for (const row of rows) {
    expect(row).toHaveLength(5);
    const latest = results.filter((r) => r.bench === benchOf(row) && r.line !== null).at(-1);
    expect([row[0], row[4]]).toEqual([row[0], latest ? `\`${latest.line}\` (${latest.date}, ${latest.commit})` : 'none recorded']);
  }
});
