/**
 * The paths and symbols that comments and docs name, and whether they still
 * hold. test/docs/references.unit.test.ts runs it over the repository; `npx tsx
 * test/docs/references.ts` lists what is stale. The rule:
 *
 * Read: every markdown file (all of its text); the comments of every .ts,
 * .tsx, .js and .mjs file (code and string literals are the compiler's and the
 * tests' to check); the comments of .sql files (`--` and block comments) and
 * of prisma/schema.prisma (`//`). Not test/fixtures/ and nothing generated.
 *
 * A path from the root: a run of letters, digits and `_ . - /` that starts
 * with a top-level folder of the repository and a slash, not right after a
 * letter, digit, `.`, `/`, `@` or `-` (so a URL, `/v1/campaigns`, `../x` and
 * `@scope/pkg` are not paths), and not right before `*`, `<`, `{` or `$` (a
 * pattern). It must exist: with a file extension, that file; ending in `/`,
 * that folder; otherwise that folder or that module (.ts, .tsx, .js,
 * /index.ts), unless a segment has a capital letter (`dev/CI` is prose) or
 * `#` or `@` follows (`prisma/orm#27403` is a GitHub issue).
 *
 * A path not from the root, with a source extension (.ts .tsx .sql .prisma):
 * one starting with ./ or ../ from the file's folder; otherwise (`clickhouse/sql.ts`,
 * `charge.ts`) the end of some file's path in the repository; under `dist/`
 * (the build's output) the source's path.
 *
 * A symbol: a name written next to a path of a source file, as
 *   `name` in|from|of path,  `name` (path),  path: name,  path#name,
 *   `path` `name`, or, with a bare code-like name (camelCase, snake_case),
 *   name in|from|of path and path name.
 * `a.b` and `a()` name `a`. In a TypeScript file a camelCase or PascalCase
 * name must be declared there (at the top level, exported, re-exported through
 * `export *`, or as a member: property, method, parameter, enum member) or be
 * a package it imports or a name it takes from one (`pg` in lib/db.ts); a
 * snake_case name is a field or a column and must appear in the file as a
 * word, as it must in a SQL or Prisma file. Where the path is the end of more
 * than one file's path, one of them is enough.
 *
 * A markdown link `[text](target#anchor)` must reach a file, and its anchor a
 * heading of that markdown file (GitHub's anchors).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

export const root = path.resolve(__dirname, '../..');

export interface Stale {
  file: string;
  line: number;
  ref: string;
  why: string;
}

/** The repository's files, tracked and new (not ignored), that exist now. */
export function repositoryFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && existsSync(path.join(root, f)));
}

const SKIP = /^(test\/fixtures\/|generated\/)|(^|\/)node_modules\/|\.d\.ts$/;
const EXT = /\.(ts|tsx|js|mjs|cjs|sql|md|json|jsonl|prisma|sh|py|html|css|yml|yaml|toml|txt|tsv|csv|png|xml)$/;
const SOURCE = /\.(ts|tsx|sql|prisma)$/;
const SNAKE = /^[a-z0-9]+_[a-z0-9_]+$/;

/** A piece of a file to read, with its offset in the file. */
interface Span {
  text: string;
  start: number;
}

/** The comments of a TypeScript or JavaScript file, each once. */
function codeComments(file: string, text: string): Span[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const spans = new Map<number, Span>();
  const take = (start: number, end: number) => spans.set(start, { text: text.slice(start, end), start });
  const visit = (node: ts.Node) => {
    ts.forEachLeadingCommentRange(text, node.pos, take);
    ts.forEachTrailingCommentRange(text, node.end, take);
    ts.forEachChild(node, visit);
  };
  visit(source);
  ts.forEachLeadingCommentRange(text, source.endOfFileToken.pos, take);
  return [...spans.values()];
}

/** What of a file is read: all of a markdown file, the comments of code, SQL and the Prisma schema. */
function spansOf(file: string, text: string): Span[] {
  if (file.endsWith('.md')) return [{ text, start: 0 }];
  if (/\.(ts|tsx|js|mjs|cjs)$/.test(file)) return codeComments(file, text);
  const re = file.endsWith('.sql') ? /--[^\n]*|\/\*[\s\S]*?\*\//g : file.endsWith('.prisma') ? /\/\/[^\n]*/g : null;
  return re ? [...text.matchAll(re)].map((m) => ({ text: m[0], start: m.index })) : [];
}

/** Comment markers at the start of continued lines, blanked (same length: offsets hold). */
const unwrap = (text: string) => text.replace(/(\n[ \t]*)(\*(?!\/)|\/\/|--)/g, (_, nl: string, mark: string) => nl + ' '.repeat(mark.length));

const isFile = (file: string) => existsSync(path.join(root, file)) && statSync(path.join(root, file)).isFile();
const isFolder = (dir: string) => existsSync(path.join(root, dir)) && statSync(path.join(root, dir)).isDirectory();

/** A module from the root (`lib/signed-token`) to its file, if any. */
function resolveModule(spec: string): string | null {
  return [spec, `${spec}.ts`, `${spec}.tsx`, `${spec}.js`, `${spec}/index.ts`].find(isFile) ?? null;
}

/** The names a TypeScript file declares (see the rule above), read with the compiler's parser. */
const declaredCache = new Map<string, Set<string>>();
function declaredIn(file: string): Set<string> {
  const cached = declaredCache.get(file);
  if (cached) return cached;
  const names = new Set<string>();
  declaredCache.set(file, names);
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, false);
  const add = (n: ts.Node | undefined): void => {
    if (!n) return;
    if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) names.add(n.text);
    else if (ts.isObjectBindingPattern(n) || ts.isArrayBindingPattern(n)) n.elements.forEach((e) => ts.isBindingElement(e) && add(e.name));
  };
  const visit = (node: ts.Node) => {
    if (ts.isExportDeclaration(node) && !node.exportClause && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolveModule(path.posix.join(path.posix.dirname(file), node.moduleSpecifier.text));
      if (target && /\.tsx?$/.test(target)) declaredIn(target).forEach((n) => names.add(n));
    } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (node.moduleSpecifier.text.startsWith('.')) return;
      names.add(node.moduleSpecifier.text);
      const clause = node.importClause;
      add(clause?.name);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) add(bindings.name);
      if (bindings && ts.isNamedImports(bindings)) bindings.elements.forEach((e) => add(e.name));
      return;
    } else if (
      ts.isExportSpecifier(node) ||
      ts.isNamespaceExport(node) ||
      ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isEnumDeclaration(node) ||
      ts.isEnumMember(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertySignature(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isShorthandPropertyAssignment(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isMethodSignature(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node) ||
      ts.isParameter(node) ||
      ts.isBindingElement(node) ||
      ts.isModuleDeclaration(node)
    )
      add(node.name);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** Why a name does not live in the file named beside it, or null. */
function symbolProblem(file: string, name: string): string | null {
  const first = name.replace(/\(\)$/, '').split('.')[0];
  if (/\.tsx?$/.test(file) && !SNAKE.test(first)) return declaredIn(file).has(first) ? null : `${first} is not declared in ${file}`;
  const text = readFileSync(path.join(root, file), 'utf8');
  return new RegExp(`(?<![\\w$])${first.replace(/\$/g, '\\$')}(?![\\w$])`).test(text) ? null : `${first} does not appear in ${file}`;
}

/** GitHub's anchor of each heading of a markdown file. */
const anchorsOf = (file: string) =>
  new Set(
    [...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

/** The rule's expressions for one repository (its top-level folders) and a check of one file's text. */
export function referenceChecker(files: string[]) {
  const tops = [...new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))];
  const ROOTED = `(?:${tops.map((t) => t.replace(/[.-]/g, '\\$&')).join('|')})/[\\w./-]*`;
  const TAIL = `(?:\\.{1,2}/)?[A-Za-z0-9_][\\w.-]*(?:/[\\w.-]+)*\\.(?:ts|tsx|sql|prisma)\\b`;
  const P = `(?<![\\w./@-])\`?(${ROOTED}|${TAIL})`;
  const pathRe = new RegExp(P, 'g');
  const anyPath = new RegExp(P);
  const rooted = new RegExp(`^${ROOTED}$`);
  const TICKED = '`([A-Za-z_$][\\w$.]*(?:\\(\\))?)`';
  const BARE = '\\b([a-z]+[A-Z][\\w$]*|[a-z]+_[a-z0-9_]+)(?:\\(\\))?';
  const forms: [RegExp, (m: RegExpMatchArray) => [name: string, ref: string]][] = [
    [new RegExp(`${TICKED}\\s+(?:in|from|of|\\()\\s*${P}`, 'g'), (m) => [m[1], m[2]]],
    [new RegExp(`${BARE}\\s+(?:in|from|of)\\s+${P}`, 'g'), (m) => [m[1], m[2]]],
    [new RegExp(`${P}(?::\\s*|#|\`?\\s+)${TICKED}`, 'g'), (m) => [m[2], m[1]]],
    [new RegExp(`${P}(?::\\s*|#|\`?\\s+)${BARE}`, 'g'), (m) => [m[2], m[1]]],
  ];

  const pathProblem = (file: string, ref: string, next: string): string | null => {
    // The build's output (npm run build) is the source's tree under dist/.
    if (ref.startsWith('dist/') && rooted.test(ref.slice(5))) return pathProblem(file, ref.slice(5), next);
    if (!rooted.test(ref)) {
      if (ref.startsWith('.')) return existsSync(path.join(root, path.dirname(file), ref)) ? null : 'no such file';
      return files.some((f) => f === ref || f.endsWith(`/${ref}`)) ? null : 'no file by that name';
    }
    if (EXT.test(ref)) return isFile(ref) ? null : 'no such file';
    if (ref.endsWith('/')) return isFolder(ref) ? null : 'no such folder';
    if (ref.split('/').some((s) => /[A-Z]/.test(s)) || /^[#@]/.test(next)) return null;
    return isFolder(ref) || resolveModule(ref) ? null : 'no such file or folder';
  };
  const filesNamed = (file: string, ref: string): string[] =>
    ref.startsWith('.')
      ? [path.posix.normalize(path.posix.join(path.posix.dirname(file), ref))].filter(isFile)
      : files.filter((f) => f === ref || f.endsWith(`/${ref}`));

  /** What is stale in one file's text. */
  return (file: string, text: string): Stale[] => {
    const stale: Stale[] = [];
    // Every reference holds a path, or a markdown link: a file whose whole text has neither needs no parse.
    if (!anyPath.test(text) && !(file.endsWith('.md') && text.includes(']('))) return stale;
    const report = (offset: number, ref: string, why: string | null) => why && stale.push({ file, line: text.slice(0, offset).split('\n').length, ref, why });
    for (const { text: raw, start } of spansOf(file, text)) {
      const span = unwrap(raw);
      for (const m of span.matchAll(pathRe)) {
        const end = m.index + m[0].length;
        if (/[*<{$]/.test(span[end] ?? '')) continue;
        const ref = m[1].replace(/\.+$/, '');
        report(start + m.index, ref, pathProblem(file, ref, span.slice(end)));
      }
      for (const [re, parts] of forms)
        for (const m of span.matchAll(re)) {
          const [name, ref] = parts(m);
          const target = ref.replace(/\.+$/, '');
          const candidates = filesNamed(file, target).filter((f) => SOURCE.test(f));
          const problems = candidates.map((f) => symbolProblem(f, name));
          if (problems.length && problems.every(Boolean)) report(start + m.index, `${name} ${target}`, problems[0]);
        }
      if (!file.endsWith('.md')) continue;
      for (const m of span.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)) {
        const [, target, anchor] = m;
        if (/^[a-z]+:/.test(target)) continue;
        const link = anchor === undefined ? target : `${target}#${anchor}`;
        const linked = path.resolve(root, path.dirname(file), target || path.basename(file));
        if (!existsSync(linked)) report(start + m.index, link, 'link to no such file');
        else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) report(start + m.index, link, 'no such heading');
      }
    }
    return stale;
  };
}

/** Every stale reference in the repository's comments and docs. */
export function staleReferences(): Stale[] {
  const files = repositoryFiles();
  const check = referenceChecker(files);
  return files
    .filter((f) => !SKIP.test(f) && /\.(md|ts|tsx|js|mjs|cjs|sql|prisma)$/.test(f) && isFile(f))
    .flatMap((f) => check(f, readFileSync(path.join(root, f), 'utf8')));
}

if (require.main === module) for (const s of staleReferences()) console.log(`${s.file}:${s.line}: ${s.ref} (${s.why})`);
