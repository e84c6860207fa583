/**
 * `adctl safety explain`: why the auction's safety screen would refuse (or
 * allow) a conversation, through the auction's own call
 * (domain/safety/index.ts): the verdict, the categories, every cue with the
 * message it was found in, the model's score per category and the thresholds.
 * It reads the conversation's window, as the auction does (auction/conversation-window.ts).
 * No service is needed unless --publisher names a publisher whose overrides apply.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Db } from '../lib/db';
import { explain, type PublisherSafetyOverrides } from '../domain/safety';
import { conversationWindow } from '../auction/conversation-window';

type Options = (
  args: string[],
  spec: Record<string, { type: 'string' | 'boolean' }>,
) => { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** The ad request's bounds on messages (auction/request-schema.ts): up to 200, each up to 20,000 characters. */
const messagesSchema = z
  .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }))
  .min(1)
  .max(200);
/** A conversation file: an ad request body (its `messages`) or the messages alone. */
const fileSchema = z.union([z.object({ messages: messagesSchema }), messagesSchema]);
/** Bounded read: 200 messages of 20,000 characters, with room for JSON's escapes. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

async function messagesOf(values: Record<string, string | boolean | undefined>, usage: (m: string) => Error) {
  const { file, text } = values;
  if ((typeof file === 'string') === (typeof text === 'string')) throw usage('give exactly one of --file F and --text T');
  if (typeof text === 'string') {
    if (text.trim() === '' || text.length > 20_000) throw usage('--text must be 1 to 20,000 characters');
    return [{ role: 'user' as const, content: text }];
  }
  const raw = await readFile(file as string);
  if (raw.length > MAX_FILE_BYTES) throw usage(`--file is over ${MAX_FILE_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw usage('--file is not JSON');
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) throw usage('--file must hold an ad request body with messages, or an array of { role: user|assistant, content } (1 to 200)');
  const messages = Array.isArray(parsed.data) ? parsed.data : parsed.data.messages;
  return messages.map(({ role, content }) => ({ role, content }));
}

async function overridesOf(db: Db, publisherId: string | boolean | undefined): Promise<PublisherSafetyOverrides | undefined> {
  if (typeof publisherId !== 'string') return undefined;
  const { findPublisher } = await import('../domain/publishers/settings');
  const { publisherRecord } = await import('../domain/publishers');
  return publisherRecord(await findPublisher(db, publisherId)).safetyOverrides;
}

export async function runSafetyCommand(db: Db, command: string, rest: string[], options: Options, usage: (m: string) => Error): Promise<object> {
  if (command !== 'safety explain') throw usage(`unknown command: ${command}`);
  const { values, positionals } = options(rest, { file: { type: 'string' }, text: { type: 'string' }, publisher: { type: 'string' } });
  if (positionals.length > 0) throw usage(`unexpected argument: ${positionals[0]}`);
  const messages = await messagesOf(values, usage);
  const overrides = await overridesOf(db, values.publisher);
  // What the auction's screen reads: the request's window (auction/stages/1-intake.ts), not the whole history.
  return explain(conversationWindow(messages), overrides, messages.length);
}
