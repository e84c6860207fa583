/**
 * DESIGN.md's layers, checked on the source: no folder imports api/, the
 * domain knows neither Express nor Temporal, lib/ imports nothing above it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
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

function offenders(folders: string[], forbidden: (target: string) => boolean): string[] {
  return folders.flatMap((folder) => sources(folder).flatMap((file) => importsOf(file).filter(forbidden).map((target) => `${file} -> ${target}`)));
}

test('no folder but api/ itself imports api/', () => {
  const folders = ['domain', 'lib', 'workflows', 'activities', 'auction', 'bin', 'worker', 'bench', 'dev', 'scripts'];
  expect(offenders(folders, (target) => target === 'api' || target.startsWith('api/'))).toEqual([]);
});

test('the domain knows neither Express nor Temporal', () => {
  expect(offenders(['domain'], (target) => target === 'express' || target.startsWith('@temporalio/'))).toEqual([]);
});

test('lib/ imports nothing above it', () => {
  const above = ['api', 'domain', 'use-cases', 'workflows', 'activities', 'auction', 'bin', 'worker', 'bench', 'dev'];
  expect(offenders(['lib'], (target) => above.some((layer) => target === layer || target.startsWith(`${layer}/`)))).toEqual([]);
});

test('use cases sit above the domain and the workflows: nothing below them imports use-cases/', () => {
  const below = ['domain', 'lib', 'workflows', 'activities', 'auction', 'worker'];
  expect(offenders(below, (target) => target === 'use-cases' || target.startsWith('use-cases/'))).toEqual([]);
});

test('routes reach Temporal only through use cases (the process wiring in api/server.ts and api/app.ts aside)', () => {
  const routes = sources('api').filter((file) => !['api/server.ts', 'api/app.ts'].includes(file));
  expect(routes.flatMap((file) => importsOf(file).filter((t) => t.startsWith('workflows/')).map((t) => `${file} -> ${t}`))).toEqual([]);
});

test('workflow clients only start and signal: no database access', () => {
  expect(offenders(['workflows/clients'], (target) => target === 'lib/db' || target.startsWith('generated/prisma'))).toEqual([]);
});

test('the domain\'s concepts import each other without cycles', () => {
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
