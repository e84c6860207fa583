/**
 * `adctl relevance --ad-groups FILE --conversations FILE [--min-relevance X]`
 * (docs/operations.md): the real `bin/adctl` in a child process ranks the ad
 * groups of a file for each conversation of another, with the auction's own
 * profile, conversation reader and score (the real text model).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { relevanceProfile } from '../domain/relevance/profile';
import { relevanceOf } from '../domain/relevance/score';
import { ConversationReader } from '../domain/understanding/conversation';
import { textEncoder } from '../domain/understanding/encoder';
import { adctl, type AdctlRun } from './support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'adctl-relevance-'));
const file = (name: string, content: unknown) => {
  const at = path.join(dir, name);
  writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
  return at;
};

const GROUPS = [
  {
    id: 'running',
    vertical: 'fitness',
    context_hints: ['running shoes', 'marathon training'],
    creative: { title: 'Shoes for your next marathon', body: 'Cushioned trainers tested on 20-mile long runs.' },
  },
  {
    id: 'sourdough',
    context_hints: ['sourdough', 'bread baking'],
    creative: { title: 'Bake real sourdough', body: 'A live starter, flour and a proofing basket.' },
  },
];
const CONVERSATIONS = [
  {
    id: 'marathon',
    messages: [
      { role: 'user', content: "I'm training for my first marathon and my running shoes are worn out after 500 miles. Which shoes should I get?" },
      { role: 'assistant', content: 'Look for cushioned running shoes made for long distances, and get fitted at a running store.' },
    ],
  },
  {
    id: 'bread',
    messages: [
      { role: 'user', content: 'My sourdough starter smells sour and the loaves come out flat. How do I get a better rise on my bread?' },
      { role: 'assistant', content: 'Feed the starter twice a day for a few days and let the dough proof longer in a warm place.' },
    ],
  },
  {
    id: 'taxes',
    messages: [
      { role: 'user', content: 'How do I file my income tax return if I moved between two states last year?' },
      { role: 'assistant', content: 'You usually file a part-year resident return in each state and split your income by the dates you lived there.' },
    ],
  },
];
const groupsFile = file('ad-groups.json', GROUPS);
const conversationsFile = file('conversations.json', CONVERSATIONS);

interface Ranked {
  ad_group_id: string;
  relevance: number;
  eligible: boolean;
}
interface Output {
  min_relevance: number;
  ad_groups: number;
  conversations: { id: string; eligible: number; ad_groups: Ranked[] }[];
}

function output(run: AdctlRun): Output {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^\{.*\}\n$/);
  return JSON.parse(run.stdout) as Output;
}

/** What the auction's pieces score, in this process: the profile from hints and copy, the reader's view, the model. */
function auctionScores(): Map<string, number> {
  const encoder = textEncoder();
  const reader = new ConversationReader(encoder);
  const scores = new Map<string, number>();
  for (const c of CONVERSATIONS) {
    const view = reader.read(c.messages);
    for (const g of GROUPS) {
      const profile = relevanceProfile(encoder, { hints: g.context_hints, copy: `${g.creative.title}. ${g.creative.body}` });
      scores.set(`${c.id}/${g.id}`, relevanceOf(view, profile));
    }
  }
  return scores;
}

test('per conversation, the eligible groups ranked with the scores the auction computes; a near miss listed as not eligible', async () => {
  const out = output(await adctl('relevance', '--ad-groups', groupsFile, '--conversations', conversationsFile));
  expect(out.min_relevance).toBe(0.5);
  expect(out.ad_groups).toBe(2);
  expect(out.conversations.map((c) => c.id)).toEqual(['marathon', 'bread', 'taxes']);
  const [marathon, bread, taxes] = out.conversations;
  expect(marathon.ad_groups[0]).toMatchObject({ ad_group_id: 'running', eligible: true });
  expect(marathon.ad_groups.map((r) => r.ad_group_id)).toEqual(['running', 'sourdough']);
  expect(marathon.ad_groups[1].eligible).toBe(false);
  expect(bread.ad_groups[0]).toMatchObject({ ad_group_id: 'sourdough', eligible: true });
  expect(taxes.eligible).toBe(0);
  expect(taxes.ad_groups.every((r) => !r.eligible && r.relevance < 0.5)).toBe(true);
  for (const c of out.conversations) {
    expect(c.eligible).toBe(c.ad_groups.filter((r) => r.eligible).length);
    const scores = c.ad_groups.map((r) => r.relevance);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  }
  const expected = auctionScores();
  for (const c of out.conversations) {
    for (const r of c.ad_groups) {
      const exact = expected.get(`${c.id}/${r.ad_group_id}`)!;
      expect(r.relevance).toBeCloseTo(exact, 4);
      expect(r.eligible).toBe(exact >= 0.5);
    }
  }
});

test('--min-relevance moves the bar', async () => {
  const all = output(await adctl('relevance', '--ad-groups', groupsFile, '--conversations', conversationsFile, '--min-relevance', '0'));
  expect(all.min_relevance).toBe(0);
  for (const c of all.conversations) expect(c.ad_groups.map((r) => r.eligible)).toEqual([true, true]);
  const none = output(await adctl('relevance', '--ad-groups', groupsFile, '--conversations', conversationsFile, '--min-relevance', '1'));
  for (const c of none.conversations) expect(c.eligible).toBe(0);
});

test.each([
  ['no --conversations', ['--ad-groups', groupsFile], /--conversations FILE is required/],
  [
    'a bar out of range',
    ['--ad-groups', groupsFile, '--conversations', conversationsFile, '--min-relevance', '1.5'],
    /--min-relevance must be a number from 0 to 1/,
  ],
  [
    'a bar that is no decimal',
    ['--ad-groups', groupsFile, '--conversations', conversationsFile, '--min-relevance', '1e-1'],
    /--min-relevance must be a decimal/,
  ],
  ['a file that is not JSON', ['--ad-groups', file('broken.json', '[{'), '--conversations', conversationsFile], /--ad-groups is not JSON/],
  [
    'an ad group without hints',
    ['--ad-groups', file('no-hints.json', [{ ...GROUPS[0], context_hints: [] }]), '--conversations', conversationsFile],
    /--ad-groups must hold .* \(at 0\.context_hints/,
  ],
  [
    'a role the auction does not take',
    ['--ad-groups', groupsFile, '--conversations', file('system.json', [{ id: 'x', messages: [{ role: 'system', content: 'hi' }] }])],
    /--conversations must hold .* \(at 0\.messages\.0\.role/,
  ],
  ['two groups with one id', ['--ad-groups', file('twice.json', [GROUPS[0], GROUPS[0]]), '--conversations', conversationsFile], /duplicate id "running"/],
  ['a file that does not exist', ['--ad-groups', path.join(dir, 'missing.json'), '--conversations', conversationsFile], /cannot read .*ENOENT/],
])('%s: an error on stderr, exit 2, nothing on stdout', async (_what, args, message) => {
  const run = await adctl('relevance', ...args);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(message);
});
