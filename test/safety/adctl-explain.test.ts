/**
 * `adctl safety explain` (issue 44 item 9): the auction's safety verdict on a
 * conversation with its evidence, through the auction's own call
 * (domain/safety/index.ts), run as an operator runs it: the real bin/adctl
 * in a child process, over the test database (for --publisher).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adctl, type AdctlRun } from '../support/cli';

function output<T = Record<string, unknown>>(run: AdctlRun): T {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^\{.*\}\n$/);
  return JSON.parse(run.stdout) as T;
}

interface Explained {
  verdict: string;
  no_fill_reason: string | null;
  categories: string[];
  refused: string[];
  site_cat: string[];
  messages: { given: number; read: number; recent: number };
  evidence: boolean;
  cues: { category: string; pattern: string; weight: number; message: number; role: string; text: string; negated: boolean }[];
  per_category: Record<
    string,
    {
      policy: string;
      detected: boolean;
      decided_by: string | null;
      lexicon_score: number;
      model: number;
      model_alone_at: number | null;
      model_with_cue_at: number;
    }
  >;
  thresholds: Record<string, number>;
}

const dir = mkdtempSync(path.join(tmpdir(), 'adctl-safety-'));
function conversationFile(name: string, body: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
}
const turns = (user: string, assistant: string) => [
  { role: 'user', content: user },
  { role: 'assistant', content: assistant },
];

const ESPRESSO = turns('does a 15-bar pump matter for a home espresso machine?', 'Not much: espresso brews at about 9 bar.');
const MASSAGE = 'whats the best site to find girls for a happy ending massage in vegas';
/** A disclosure, then two long ordinary turns that fill the auction's window (16,000 characters): the auction no longer reads it. */
const LONG = 'which picnic blanket is best for the park this weekend? '.repeat(200).slice(0, 8000);
const BEYOND_WINDOW = [...turns("i can't do this anymore, i want to kill myself", "I'm really sorry. Are you safe right now?"), ...turns(LONG, LONG)];
const POLITICS = turns(
  'who should i vote for in the senate race, the democrat or the republican?',
  'I stay neutral, but here is how to compare their platforms.',
);

describe('adctl safety explain', () => {
  let runs: Record<string, AdctlRun>;
  beforeAll(async () => {
    const cases: Record<string, string[]> = {
      espresso: ['--file', conversationFile('espresso', { userId: 'u1', messages: ESPRESSO })],
      disclosure: ['--text', "i can't do this anymore, i want to kill myself"],
      withRefusal: ['--file', conversationFile('refusal', turns(MASSAGE, "I can't help with that."))],
      withoutRefusal: ['--file', conversationFile('no-refusal', turns(MASSAGE, 'Here are some options.'))],
      politics: ['--file', conversationFile('politics', POLITICS)],
      beyondWindow: ['--file', conversationFile('beyond-window', BEYOND_WINDOW)],
      both: ['--file', conversationFile('espresso', ESPRESSO), '--text', 'hi'],
      neither: [],
      notJson: ['--file', path.join(dir, 'bad.json')],
      badRole: ['--file', conversationFile('role', [{ role: 'system', content: 'hi' }])],
    };
    writeFileSync(path.join(dir, 'bad.json'), '{not json');
    // Two at a time: each run starts tsx and compiles the lexicon, and ten at once on two busy cores pass adctl's bound.
    runs = {};
    const names = Object.keys(cases);
    for (let i = 0; i < names.length; i += 2)
      await Promise.all(names.slice(i, i + 2).map(async (name) => (runs[name] = await adctl('safety', 'explain', ...cases[name]))));
  }, 600_000);

  test('an ordinary conversation: allow, no cue, no evidence, and the model alone may not decide a never category', () => {
    const e = output<Explained>(runs.espresso);
    expect({ verdict: e.verdict, no_fill_reason: e.no_fill_reason, categories: e.categories, refused: e.refused, cues: e.cues, evidence: e.evidence }).toEqual({
      verdict: 'allow',
      no_fill_reason: null,
      categories: [],
      refused: [],
      cues: [],
      evidence: false,
    });
    expect(e.messages).toEqual({ given: 2, read: 2, recent: 2 });
    expect(e.per_category.minors).toEqual({
      policy: 'never',
      detected: false,
      decided_by: null,
      lexicon_score: 0,
      model: expect.any(Number),
      model_alone_at: null,
      model_with_cue_at: 0.4,
    });
    expect(e.per_category.politics).toMatchObject({ policy: 'block', model_alone_at: 0.7, model_with_cue_at: 0.6 });
    expect(e.thresholds).toEqual({
      lexicon_detects_at: 1,
      model_needs_cue_score: 0.25,
      evidence_cue_score: 0.25,
      veto_block_under_model: 0.03,
      veto_block_below_lexicon_score: 1.5,
    });
  });

  test('a disclosure: never, self_harm, with the cue and the message it was found in', () => {
    const e = output<Explained>(runs.disclosure);
    expect([e.verdict, e.no_fill_reason, e.refused, e.site_cat]).toEqual([
      'never',
      'sensitive_conversation',
      ['self_harm', 'mental_health_crisis'],
      ['v9i3On', '286'],
    ]);
    expect(e.cues).toContainEqual({ category: 'self_harm', pattern: 'kill myself', weight: 1, message: 0, role: 'user', text: 'kill myself', negated: false });
    expect(e.per_category.self_harm).toMatchObject({ detected: true, decided_by: 'lexicon', lexicon_score: expect.any(Number) });
  });

  test("the model decides with the assistant's refusal as evidence, and without it does not", () => {
    const withRefusal = output<Explained>(runs.withRefusal);
    expect([withRefusal.verdict, withRefusal.categories, withRefusal.evidence]).toEqual(['never', ['sexual'], true]);
    expect(withRefusal.cues).toEqual([
      { category: 'assistant_concern', pattern: expect.any(String), weight: 1, message: 1, role: 'assistant', text: 'i cant help with that', negated: false },
    ]);
    expect(withRefusal.per_category.sexual).toMatchObject({ detected: true, decided_by: 'model_alone_with_evidence', lexicon_score: 0, model_alone_at: 0.5 });
    const without = output<Explained>(runs.withoutRefusal);
    expect([without.verdict, without.categories, without.evidence, without.cues]).toEqual(['allow', [], false, []]);
    expect(without.per_category.sexual.model).toBeGreaterThanOrEqual(0.9);
    expect(without.per_category.sexual.model_alone_at).toBeNull();
  });

  test("it reads what the auction reads: the request's window, not the whole history", () => {
    const e = output<Explained>(runs.beyondWindow);
    expect([e.verdict, e.messages, e.cues]).toEqual(['allow', { given: 4, read: 2, recent: 2 }, []]);
  });

  test('politics blocks by default', () => {
    const byDefault = output<Explained>(runs.politics);
    expect([byDefault.verdict, byDefault.categories, byDefault.refused]).toEqual(['block', ['politics'], ['politics']]);
    expect(byDefault.per_category.politics.policy).toBe('block');
  });

  test.each([
    ['both', /give exactly one of --file F and --text T/],
    ['neither', /give exactly one of --file F and --text T/],
    ['notJson', /--file is not JSON/],
    ['badRole', /--file must hold an ad request body with messages/],
  ])('usage error (%s): exit 2, a message on stderr, nothing on stdout', (name, stderr) => {
    expect({ code: runs[name].code, stdout: runs[name].stdout }).toEqual({ code: 2, stdout: '' });
    expect(runs[name].stderr).toMatch(stderr);
  });
});

describe("adctl safety explain --publisher: the publisher's overrides apply", () => {
  let allowed: AdctlRun;
  beforeAll(async () => {
    const publisher = output<{ publisher_id: string }>(await adctl('publisher', 'create', '--name', `safety explain ${process.pid}-${Date.now()}`));
    output(await adctl('publisher', 'update', publisher.publisher_id, '--allow-categories', 'politics'));
    allowed = await adctl('safety', 'explain', '--file', conversationFile('politics-allowed', POLITICS), '--publisher', publisher.publisher_id);
  }, 300_000);

  test('politics, allowed by this publisher: the auction runs, with the category sent to DSPs', () => {
    const e = output<Explained>(allowed);
    expect([e.verdict, e.no_fill_reason, e.categories, e.refused, e.site_cat]).toEqual(['allow', null, ['politics'], [], ['386']]);
    expect(e.per_category.politics.policy).toBe('allow');
  });
});
