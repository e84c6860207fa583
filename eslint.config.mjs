// ESLint 9 flat config: typescript-eslint with type information (web/ through its own
// tsconfig, which the project service finds), DESIGN.md's layers (layers.json) as
// no-restricted-imports, Temporal's workflow sandbox, and a ceiling on function length.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const { rules: layerRules } = JSON.parse(readFileSync(new URL('./layers.json', import.meta.url), 'utf8'));

/** A relative specifier that climbs to a top-level folder (no layer's name repeats deeper in the tree), or a package and its subpaths. */
const folderPattern = (folder, message) => ({ regex: `^(\\.\\./)+${folder}(/|$)`, message });
const packagePattern = (name, message) => ({ regex: `^${name}(/|$)`, message });

/**
 * Temporal runs workflow code in a deterministic sandbox (a V8 context without Node's
 * modules, I/O or real clocks): a workflow file imports values only from
 * @temporalio/workflow and the workflow files beside it, anything else as `import type`.
 * The activities (activities/) do the I/O.
 */
const workflowSandbox = {
  regex: '^(?!@temporalio/workflow$|\\./[^/]+$)',
  allowTypeImports: true,
  message:
    "Temporal's workflow sandbox: import values only from @temporalio/workflow and other workflow files (types from anywhere); I/O belongs in an activity.",
};
const SANDBOXED = 'workflows';
const OUTSIDE_SANDBOX = 'workflows/clients'; // start and signal workflows from the api and the worker

/**
 * One no-restricted-imports config per importer scope, general to specific: a later
 * config replaces an earlier one's options for the files they share, so each scope
 * carries every rule of the folders that contain it.
 */
function layerConfigs() {
  // An exception is a file (api/server.ts) or a folder (domain/safety): a folder is a scope like an importer.
  const exceptions = layerRules.flatMap((rule) => rule.except ?? []);
  const files = [...new Set(exceptions.filter((except) => except.endsWith('.ts')))];
  const folders = [
    ...new Set([...layerRules.flatMap((rule) => rule.importers), ...exceptions.filter((except) => !except.endsWith('.ts')), SANDBOXED, OUTSIDE_SANDBOX]),
  ].sort((a, b) => a.split('/').length - b.split('/').length);
  const contains = (importer, scope) => scope === importer || scope.startsWith(`${importer}/`);
  const patternsFor = (scope) => [
    ...layerRules
      .filter((rule) => rule.importers.some((importer) => contains(importer, scope)) && !(rule.except ?? []).some((except) => contains(except, scope)))
      .flatMap((rule) => [...(rule.folders ?? []).map((f) => folderPattern(f, rule.why)), ...(rule.packages ?? []).map((p) => packagePattern(p, rule.why))]),
    ...(scope === SANDBOXED ? [workflowSandbox] : []),
  ];
  return [...folders.map((folder) => [folder, [`${folder}/**/*.ts`]]), ...files.map((file) => [file, [file]])].map(([scope, globs]) => {
    const patterns = patternsFor(scope);
    return { name: `layers/${scope}`, files: globs, rules: { 'no-restricted-imports': patterns.length ? ['error', { patterns }] : 'off' } };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'generated/**', '.data/**', 'test-output/**', 'prisma/migrations/**', 'dist/**', 'sdk/*/dist/**'] },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `typeof import('x')` stays allowed: it types the lazy loads (adctl's clients, geoip-lite, jest.isolateModules).
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // ...and an import of types only becomes `import type { ... }` (the fix above marks each name).
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async function that implements a Promise-returning interface (a bidder, a generator, a fake) need not await.
      '@typescript-eslint/require-await': 'off',
      // A `let` read by a closure before its one assignment (guarded-fetch's request) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The sanitizers (dsp-content, SQL literals, header values, dead letters) match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests, benchmarks and local stand-ins read untyped JSON bodies on every line: the no-unsafe-* family would only force casts there.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'dev/**/*.ts', 'scripts/**/*.ts', 'prisma.config.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // jest.isolateModules loads a fresh module synchronously: only require() can.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The unit tier (jest project `unit`) runs without services: none of their clients, harnesses or processes.
    files: ['test/**/*.unit.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '(^|/)(support/(harness|fixtures|cli)|dev/(processes|local-stack)|lib/(db|temporal|clickhouse/client))$|^(pg|@temporalio/(client|worker|testing))$',
              allowTypeImports: true,
              message: 'A *.unit.test.ts needs no service: a test that does is a plain *.test.ts (jest project `service`).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    ignores: ['test/**', 'dev/stripe-emulator/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  ...layerConfigs(),
  {
    files: [`${SANDBOXED}/**/*.ts`],
    ignores: [`${OUTSIDE_SANDBOX}/**`],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'setImmediate', 'require', '__dirname', '__filename'].map((name) => ({ name, message: workflowSandbox.message })),
      ],
    },
  },
);
