/**
 * DESIGN.md's layers, checked on the source: the rules of layers.json (no folder
 * imports api/, the domain knows neither Express nor Temporal, lib/ imports
 * nothing above it, ...), no cycles between the domain's concepts, and what the
 * services load never reaches the safety classifier's training tools.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

function sources(folder: string): string[] {
  const dir = path.join(root, folder);
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(path.join(folder, name));
    return name.endsWith('.ts') ? [path.join(folder, name)] : [];
  });
}

/** Every module a file imports (static or dynamic), resolved to a root-relative path or a package name. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map(([, spec]) =>
    spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(path.join(root, file)), spec)) : spec,
  );
}

interface LayerRule {
  why: string;
  importers: string[];
  except?: string[];
  folders?: string[];
  packages?: string[];
}

/** The same rules eslint.config.mjs enforces as no-restricted-imports; here every import is resolved, dynamic ones too. */
const { rules } = JSON.parse(readFileSync(path.join(root, 'layers.json'), 'utf8')) as { rules: LayerRule[] };
const under = (target: string, folder: string) => target === folder || target.startsWith(`${folder}/`);

test.each(rules)('$why', ({ importers, except = [], folders = [], packages = [] }) => {
  const files = importers.flatMap(sources).filter((file) => !except.some((exception) => under(file, exception)));
  const forbidden = (target: string) => [...folders, ...packages].some((layer) => under(target, layer));
  expect(
    files.flatMap((file) =>
      importsOf(file)
        .filter(forbidden)
        .map((target) => `${file} -> ${target}`),
    ),
  ).toEqual([]);
});

test("the domain's concepts import each other without cycles", () => {
  const folderOf = (file: string) => file.split('/')[1].replace(/\.ts$/, '');
  const edges = new Map<string, Set<string>>();
  for (const file of sources('domain')) {
    for (const target of importsOf(file).filter((t) => t.startsWith('domain/'))) {
      if (folderOf(target) !== folderOf(file)) (edges.get(folderOf(file)) ?? edges.set(folderOf(file), new Set()).get(folderOf(file))!).add(folderOf(target));
    }
  }
  const cycles: string[] = [];
  const visit = (node: string, path: string[]) => {
    for (const next of edges.get(node) ?? []) {
      if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else visit(next, [...path, next]);
    }
  };
  for (const node of edges.keys()) visit(node, [node]);
  expect(cycles).toEqual([]);
});

/** The file a root-relative import names (a module, a folder's index, or JSON), or null for a package. */
function fileOf(target: string): string | null {
  return [`${target}.ts`, `${target}/index.ts`, target].find((file) => /\.(ts|json)$/.test(file) && existsSync(path.join(root, file))) ?? null;
}

test("the services, the CLI and the migrations (the build's entries) never load the safety classifier's training tools", () => {
  const { files: entries } = JSON.parse(readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { files: string[] };
  const reached = new Set(entries.filter((file) => !file.endsWith('.d.ts')));
  for (const file of reached) {
    if (!file.endsWith('.ts')) continue;
    for (const target of importsOf(file)) {
      const next = fileOf(target);
      if (next) reached.add(next);
    }
  }
  // The walk does reach the classifier (through the auction's screen), so it would reach its training tools if anything imported them.
  expect(reached).toContain('domain/safety/classifier/classifier.ts');
  expect([...reached].filter((file) => under(file, 'domain/safety/training'))).toEqual([]);
});
