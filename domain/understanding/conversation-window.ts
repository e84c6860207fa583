import { maskMessages } from './pii';

/**
 * The part of a conversation the auction reads and passes on: the safety
 * screen, the in-house relevance and the native bid request all take this
 * window, never the request's own `messages` (which the schema accepts up to
 * 200 messages of 20,000 characters each). Computed once per request, at intake,
 * with personal data masked (./pii.ts: `[email]`, `[phone]`, ...), so nothing
 * downstream, a DSP above all, ever holds the raw text.
 * An advertiser's relevance test reads the conversation it posts through the
 * same window (domain/relevance/hint-test.ts), so both score the same text.
 *
 * - the newest `messages` messages (the classifier's `never` lookback);
 * - each message at most `messageChars` characters (UTF-16 units): a longer one
 *   keeps its beginning and its end, joined by CUT_MARK, as the classifier reads it;
 * - at most `totalChars` characters in all, counted from the newest message:
 *   the first older message that no longer fits whole ends the window.
 * The last two messages (the user's turn and the assistant's answer) always fit
 * (totalChars >= 2 * messageChars), so the window is a suffix of the
 * conversation that still alternates roles and ends as the request does.
 */
export const CONVERSATION_WINDOW = {
  messages: 24,
  messageChars: 8_000,
  totalChars: 16_000,
} as const;

/** Where a message was cut: its beginning and its end are kept on either side. */
export const CUT_MARK = '\n…\n';

/** What the window needs of a message: its text (roles and the rest are carried along). */
export interface Windowed {
  content: string;
}

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * The window of `messages`, personal data masked: the very array when it is
 * within every limit and holds none; otherwise a new one. A masked message may
 * be a few characters longer than its cut (a placeholder can be longer than what it stands for).
 */
export function conversationWindow<M extends Windowed>(messages: readonly M[] | undefined): readonly M[] {
  return maskMessages(windowOf(messages));
}

function windowOf<M extends Windowed>(messages: readonly M[] | undefined): readonly M[] {
  if (!messages || messages.length === 0) return EMPTY;
  const { messages: maxMessages, messageChars, totalChars } = CONVERSATION_WINDOW;
  const first = Math.max(0, messages.length - maxMessages);
  let total = 0;
  let within = first === 0;
  for (let i = messages.length - 1; within && i >= first; i -= 1) {
    const length = messages[i].content.length;
    total += length;
    within = length <= messageChars && total <= totalChars;
  }
  if (within) return messages;

  const out: M[] = [];
  let budget = totalChars;
  for (let i = messages.length - 1; i >= first; i -= 1) {
    const message = messages[i];
    const content = cut(message.content, messageChars);
    if (content.length > budget) break;
    budget -= content.length;
    out.push(content === message.content ? message : { ...message, content });
  }
  return out.reverse();
}

/** `text` as at most `max` UTF-16 units: its beginning and end around CUT_MARK, no surrogate pair split; slices, not copies. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = max - CUT_MARK.length;
  let headEnd = Math.ceil(keep / 2);
  let tailStart = text.length - (keep - headEnd);
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  return text.slice(0, headEnd) + CUT_MARK + text.slice(tailStart);
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
