/**
 * Comments and docs name paths and symbols that exist (the rule, and what
 * counts as a reference, is in references.ts). When this fails, it lists each
 * stale reference as file:line; fix the comment or doc, not the rule.
 */
import { referenceChecker, repositoryFiles, staleReferences } from './references';

describe('the rule', () => {
  const check = referenceChecker(repositoryFiles());
  const refs = (file: string, text: string) => check(file, text).map((s) => s.ref);

  test.each([
    ['a file that is gone', 'docs/x.md', 'Charged in `domain/delivery/charges.ts`.', ['domain/delivery/charges.ts']],
    ['a folder that is gone', 'docs/x.md', 'Under domain/nowhere/ and lib/http/.', ['domain/nowhere/']],
    ['a module without its extension', 'lib/x.ts', '// lib/signed-token adds the expiry; lib/nowhere-token too\n', ['lib/nowhere-token']],
    ['a file named by the end of its path', 'docs/x.md', 'The literals in `clickhouse/sql.ts`, not `clickhouse/sqls.ts`.', ['clickhouse/sqls.ts']],
    ["a path from the file's folder", 'docs/x.md', 'See ../lib/db.ts and ../lib/gone.ts.', ['../lib/gone.ts']],
    ['a symbol in the wrong file', 'docs/x.md', '`isServable` in auction/inhouse/eligibility.ts', ['isServable auction/inhouse/eligibility.ts']],
    ['a symbol after its file', 'prisma/x.sql', '-- auction/inhouse/eligibility.ts isServable: active\n', ['isServable auction/inhouse/eligibility.ts']],
    ['a symbol in parentheses', 'docs/x.md', 'Eligible (`domain/serving/eligibility.ts: isServable`), `healthSignal` (`auction/dsp/health.ts`).', []],
    ['a symbol where it is', 'docs/x.md', '`isServable` in `domain/serving/eligibility.ts`; `servingBlock` (domain/serving/eligibility.ts)', []],
    [
      'a field of the file',
      'docs/x.md',
      'The `feedback_url` (`api/tracking/delivery.ts`) and `nowhere_url` (`api/tracking/delivery.ts`).',
      ['nowhere_url api/tracking/delivery.ts'],
    ],
    ['a package the file imports', 'docs/x.md', 'Prisma and `pg` in `lib/db.ts`.', []],
    [
      'a markdown link and its anchor',
      'docs/x.md',
      '[a](operations.md#metrics) [b](operations.md#no-such-heading) [c](nowhere.md)',
      ['operations.md#no-such-heading', 'nowhere.md'],
    ],
  ])('%s', (_what, file, text, stale) => {
    expect(refs(file, text)).toEqual(stale);
  });

  test.each([
    ['code and strings are not comments', 'lib/x.ts', "const p = 'lib/countries.ts'; // a comment\n"],
    ['URLs and URL paths are not paths', 'docs/x.md', 'GET /v1/campaigns/x, https://github.com/o/r/blob/main/lib/gone.ts, @scope/lib/gone.ts'],
    ['prose with a slash', 'docs/x.md', 'the dev/CI server, prisma/orm#27403'],
    ['patterns', 'docs/x.md', '`domain/<concept>/`, test/fixtures/bidders/*.json, `bench/{a,b}.ts`'],
    ['plain words beside a file', 'docs/x.md', 'they are devDependencies (`lib/db.ts`), the ledger in domain/delivery/ledger.ts'],
  ])('not a reference: %s', (_what, file, text) => {
    expect(refs(file, text)).toEqual([]);
  });
});

test('every path and symbol named in a comment or doc exists', () => {
  expect(staleReferences().map((s) => `${s.file}:${s.line}: ${s.ref} (${s.why})`)).toEqual([]);
});
