/**
 * `adctl relevance --ad-groups FILE --conversations FILE [--min-relevance X]`:
 * per conversation, the ad groups ranked by relevance, eligible ones first and
 * the best few under the bar after them, through the auction's own profile,
 * conversation reader, window and score (domain/relevance/ranking.ts). The files
 * have the shape of bench/relevance/ad-groups.json and conversations.json.
 * No service is needed.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { contextHints } from '../domain/campaigns/ad-group-schema';
import { adGroupProfile, rankAdGroups, readConversation } from '../domain/relevance/ranking';
import { DEFAULT_MIN_RELEVANCE } from '../domain/relevance/score';
import { conversationWindow } from '../domain/understanding/conversation-window';
import { decimalFlag } from './adctl-numbers';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** Ad groups as bench/relevance/ad-groups.json holds them (other fields, such as vertical, are ignored). */
const adGroupsSchema = z
  .array(
    z.object({
      id: z.string().min(1),
      context_hints: contextHints.min(1),
      creative: z.object({ title: z.string(), body: z.string().nullable().optional() }),
    }),
  )
  .min(1)
  .max(100_000);
/** Conversations as bench/relevance/conversations.json holds them; messages within the ad request's bounds. */
const conversationsSchema = z
  .array(
    z.object({
      id: z.string().min(1),
      messages: z
        .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }))
        .min(1)
        .max(200),
    }),
  )
  .min(1)
  .max(100_000);
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** How many groups under the bar are listed after the eligible ones. */
const NEAR_MISSES = 3;

async function readFileAs<T>(file: string | boolean | undefined, flag: string, schema: z.ZodType<T>, shape: string, usage: (m: string) => Error): Promise<T> {
  if (typeof file !== 'string' || file === '') throw usage(`--${flag} FILE is required`);
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (err) {
    throw usage(`--${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (raw.length > MAX_FILE_BYTES) throw usage(`--${flag} is over ${MAX_FILE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw usage(`--${flag} is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usage(`--${flag} must hold ${shape} (at ${issue.path.join('.') || 'the top'}: ${issue.message})`);
  }
  return parsed.data;
}

export async function runRelevanceCommand(rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  const { values, positionals } = options(rest, { 'ad-groups': { type: 'string' }, conversations: { type: 'string' }, 'min-relevance': { type: 'string' } });
  if (positionals.length > 0) throw usage(`unexpected argument: ${positionals[0]}`);
  let minRelevance = DEFAULT_MIN_RELEVANCE;
  if (typeof values['min-relevance'] === 'string') {
    minRelevance = decimalFlag(values['min-relevance'], 'min-relevance', usage);
    if (minRelevance < 0 || minRelevance > 1) throw usage('--min-relevance must be a number from 0 to 1');
  }
  const groups = await readFileAs(
    values['ad-groups'],
    'ad-groups',
    adGroupsSchema,
    'an array of { id, context_hints: [non-empty strings], creative: { title, body? } }',
    usage,
  );
  const conversations = await readFileAs(
    values.conversations,
    'conversations',
    conversationsSchema,
    'an array of { id, messages: [{ role: user|assistant, content }] } (1 to 200 messages)',
    usage,
  );
  const seen = new Set<string>();
  for (const g of groups) {
    if (seen.has(g.id)) throw usage(`--ad-groups: duplicate id ${JSON.stringify(g.id)}`);
    seen.add(g.id);
  }
  const profiles = groups.map((g) => ({ id: g.id, profile: adGroupProfile(g.context_hints, g.creative) }));
  return {
    min_relevance: minRelevance,
    ad_groups: groups.length,
    conversations: conversations.map((c) => {
      // What the auction reads of a conversation: its window (auction/stages/1-intake.ts).
      const ranked = rankAdGroups(readConversation(conversationWindow(c.messages)), profiles, minRelevance, NEAR_MISSES);
      return { id: c.id, eligible: ranked.filter((r) => r.eligible).length, ad_groups: ranked };
    }),
  };
}
