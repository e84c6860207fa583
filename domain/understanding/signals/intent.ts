import { isContentWord, tokens } from './words';
import { PII_MARK } from '../pii';

/**
 * The intent query (site.search / app.search): the user's current request as
 * a short standalone query, extractive. The user's latest message, its
 * greetings and thanks cut off; a long one (over KEEP_WHOLE_CHARS) reduced to
 * its content words in order; a follow-up ("how long do those last?", "and
 * for kids?") prefixed with what it points back at (followUpContext). Empty when the
 * latest message asks for nothing: greetings, thanks, small talk, questions
 * about the assistant itself.
 */
export const MAX_QUERY_CHARS = 200;
const KEEP_WHOLE_CHARS = 120;
/** A request with this many content words or fewer needs the earlier turns to stand alone. */
const SHORT_REQUEST_WORDS = 4;
const MAX_QUERY_WORDS = 20;

const LEADING_COURTESY =
  /^(?:(?:hi|hello|hey|hiya|ok|okay|so|well|alright|right|thanks|thank you|thx|great|cool|perfect|awesome|nice|good morning|good evening|bonjour|bonsoir|salut|coucou|merci|d'accord|alors|hallo|hi|moin|danke|super|okay|also|hola|buenas|gracias|vale|bueno|ciao|salve|grazie|perfetto|allora|olá|oi|obrigad[oa]|então|hoi|dank je|bedankt|oké|nou|cześć|dzięki|dziękuję|dobrze|hej|tack|okej|merhaba|selam|teşekkürler|tamam|привет|спасибо|хорошо)\b[\s,!.:;-]*)+/iu;

/** Words that point back to what was said before, per language (ISO 639-1; others read as English). */
const ANAPHORS: Record<string, string> = {
  en: 'it|its|they|them|their|those|these|that|this|he|him|his|she|her|there|the same|one of them|which one|which ones',
  fr: 'ça|cela|ceux|celles|celui|celle|ceux-ci|celui-ci|celle-ci|lequel|laquelle|lesquels|il|elle|ils|elles|le|la|les|l|en|y|les mêmes',
  de: 'es|er|sie|ihn|ihm|ihr|diese|dieser|dieses|davon|dafür|damit|dort|welche|welcher|welches|die gleichen|denen',
  es: 'eso|esos|esas|ese|esa|esto|estos|estas|cuál|cuáles|los mismos|las mismas|lo',
  it: 'quello|quelli|quelle|questi|queste|questo|quale|quali|gli stessi|ne',
  pt: 'isso|esses|essas|esse|essa|isto|estes|estas|qual|quais|os mesmos|as mesmas',
  nl: 'dat|die|deze|dit|ervan|ermee|welke|dezelfde|het',
  pl: 'to|te|tego|tych|ten|ta|który|która|które|takie same|nich|nimi',
  sv: 'det|dem|de|den|dessa|vilken|vilket|vilka|samma',
  tr: 'onlar|bunlar|şunlar|onu|bunu|bu|şu|hangisi|hangileri|aynısı',
  ru: 'это|они|их|эти|этот|эта|такие|который|которые|какой|какие|то же',
};
/** How a follow-up starts ("and for kids?", "what about the red one?"), per language. */
const CONTINUATIONS: Record<string, string> = {
  en: 'and|what about|how about|and what about|also|but',
  fr: 'et|et pour|et les|et si|mais|aussi',
  de: 'und|und was ist mit|was ist mit|und für|aber|auch',
  es: 'y|y para|y los|y las|qué tal|pero|también',
  it: 'e|e per|e i|e le|e se|ma|anche',
  pt: 'e|e para|e os|e as|e se|mas|também',
  nl: 'en|en voor|en de|en wat|wat dacht je van|maar|ook',
  pl: 'a|i|a co z|a dla|ale|też',
  sv: 'och|och för|och de|vad sägs om|men|också',
  tr: 've|peki|ya|ama|bir de',
  ru: 'а|и|а для|а что|но|тоже',
};
const anaphorRules = new Map<string, { anaphor: RegExp; continuation: RegExp }>();
function rulesOf(language: string | undefined) {
  const lang = language && ANAPHORS[language] ? language : 'en';
  let rules = anaphorRules.get(lang);
  if (!rules) {
    rules = {
      anaphor: new RegExp(`(?:^|[\\s,'’])(?:${ANAPHORS[lang]})(?=$|[\\s,?!.'’])`, 'iu'),
      continuation: new RegExp(`^(?:${CONTINUATIONS[lang]})(?=$|[\\s,?!.])`, 'iu'),
    };
    anaphorRules.set(lang, rules);
  }
  return rules;
}

/** Words that say the user moves on to something new: the earlier turns are no context for it. */
const TOPIC_SHIFT =
  /(?:^|[^\p{L}])(?:different question|another question|unrelated|on another note|changing the subject|by the way|anyway|new question|autre question|autre chose|sinon|changement de sujet|andere frage|übrigens|ganz anderes thema|otra pregunta|por cierto|cambiando de tema|altra domanda|a proposito|cambiando argomento|outra pergunta|aliás|mudando de assunto|andere vraag|trouwens|ander onderwerp|inne pytanie|przy okazji|zmieniając temat|en annan fråga|förresten|byta ämne|başka bir soru|bu arada|konu değiştirelim|другой вопрос|кстати|сменим тему)(?=$|[^\p{L}])/iu;

/** Small talk, asked as a question or not: no request in it. */
const SMALL_TALK =
  /(?:^|[^\p{L}])(?:how are you|how's it going|what's up|who are you|what are you|what is your name|what's your name|are you (?:a )?(?:bot|human|real|ai)|tell me (?:a )?joke|tell me something funny|make me laugh|i'?m bored|good night|see you|bye|comment ça va|comment vas-tu|qui es-tu|raconte(?:-moi)? une blague|wie geht'?s|wie geht es dir|wer bist du|erzähl (?:mir )?einen witz|cómo estás|qué tal|quién eres|cuéntame un chiste|come stai|chi sei|raccontami una barzelletta|como vai|como você está|quem é você|conte uma piada|hoe gaat het|wie ben jij|vertel een grap|jak się masz|kim jesteś|opowiedz dowcip|hur mår du|vem är du|berätta ett skämt|nasılsın|sen kimsin|fıkra anlat|как дела|кто ты|расскажи анекдот)(?=$|[^\p{L}])/iu;

/** Words that say how someone talks, not what they want: never an intent alone. */
const CHATTER = new Set(
  'lol haha hahaha hehe xd jaja jajaja nah meh hmm yeah yep wow cool awesome perfect amazing lovely great nice fun funny joke jokes bored weather mood day week weekend life sad happy tired glad bot ai assistant chatbot name'.split(
    ' ',
  ),
);

/** Words that ask for something even without a question mark ("recommend a laptop", "busco un móvil"). */
const REQUEST = new Set(
  `need want looking recommend suggest find give show help plan compare explain ideas tips
  cherche besoin conseille conseillez recommande voudrais veux trouve donne suche brauche empfiehl empfehle möchte zeig hilf
  busco necesito recomienda recomiéndame quiero dame cerco bisogno consiglia consigliami vorrei voglio dammi procuro preciso recomenda quero
  zoek nodig raad wil szukam potrzebuję poleć polecisz chcę letar söker behöver rekommendera vill arıyorum lazım öner istiyorum ищу нужен нужна посоветуй хочу дай помоги`
    .split(/\s+/)
    .map((w) => w.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')),
);
/** A statement (no question mark, no request word) with this many content words or fewer asks for nothing: "we talked for hours, I'm so happy" ("I have a toothache" does). */
const STATEMENT_MAX_WORDS = 1;

export interface IntentInput {
  /** The user's latest message, PII cut out. */
  latest: string;
  /** Whether an earlier turn exists to resolve a follow-up against. */
  hasEarlier: boolean;
  /** Whether the assistant's message just before asked the user something (the latest message answers it). */
  answersQuestion?: boolean;
  stop: ReadonlySet<string>;
  language: string | undefined;
}

export interface IntentShape {
  /** The latest message's content words (folded), chatter left out. */
  content: string[];
  hasIntent: boolean;
  followUp: boolean;
  /** The message as the query's own part: courtesy cut, a long one reduced to its questions or its content words. */
  text: string;
  /** A long message's other content words, leading its questions. */
  lead: string;
}

export function intentShape({ latest, hasEarlier, answersQuestion = false, stop, language }: IntentInput): IntentShape {
  const trimmed = withoutPersonalData(latest, stop).replace(/\s+/g, ' ').trim();
  const cleaned = trimmed.replace(LEADING_COURTESY, '').trim() || trimmed;
  const words = tokens(cleaned);
  const content = words.filter((t) => isContentWord(t.key, stop) && !CHATTER.has(t.key)).map((t) => t.key);
  const question = /[?？]/.test(cleaned);
  const lower = cleaned.toLowerCase();
  const rules = rulesOf(language);
  const anaphor = rules.anaphor.test(lower);
  const continues = rules.continuation.test(trimmed.toLowerCase());
  const asks = question || words.some((t) => REQUEST.has(t.key));
  const smallTalk = (SMALL_TALK.test(lower) && content.length <= 2) || (!asks && content.length <= STATEMENT_MAX_WORDS);
  // A follow-up leans on what came before: it points back, goes on from it, or is too short to stand alone; unless the user says they move on.
  const followUp =
    hasEarlier &&
    !smallTalk &&
    !TOPIC_SHIFT.test(lower) &&
    (anaphor || continues || answersQuestion || content.length <= SHORT_REQUEST_WORDS || (question && content.length === 0));
  const hasIntent = !smallTalk && (content.length > 0 || followUp);
  let text = cleaned;
  let lead = '';
  if (text.length > KEEP_WHOLE_CHARS) {
    // A long message: its questions as asked, led by the content words of the rest; else its content words.
    const sentences = cleaned.match(/[^.!?？]+[.!?？]*/gu) ?? [cleaned];
    const asked = sentences.filter((x) => /[?？]/.test(x)).map((x) => x.trim());
    const askedText = asked.join(' ');
    if (asked.length && askedText.length <= KEEP_WHOLE_CHARS) {
      text = askedText;
      const rest = sentences.filter((x) => !/[?？]/.test(x)).join(' ');
      lead = contentWords(rest, stop, MAX_LEAD_WORDS, new Set(tokens(askedText).map((t) => t.key))).join(' ');
    } else text = contentWords(cleaned, stop, MAX_QUERY_WORDS).join(' ');
  }
  return { content, hasIntent, followUp, text, lead };
}

/**
 * The message with personal data's place removed, and without the sentences
 * that said little else and asked nothing ("Call me on ...": what is left of them reads as noise).
 */
function withoutPersonalData(text: string, stop: ReadonlySet<string>): string {
  if (!text.includes(PII_MARK)) return text;
  const sentences = text.match(/[^.!?？\n]+[.!?？\n]*/gu) ?? [];
  const kept = sentences
    .filter((x) => !x.includes(PII_MARK) || /[?？]/.test(x) || tokens(x).filter((t) => isContentWord(t.key, stop)).length > 2)
    .map((x) => x.split(PII_MARK).join(' '));
  return kept.join(' ').trim() ? kept.join(' ') : text.split(PII_MARK).join(' ');
}

/** Words leading a long message's questions. */
const MAX_LEAD_WORDS = 10;

/** A text's content words in order, each once, at most `max` (surface forms). */
function contentWords(text: string, stop: ReadonlySet<string>, max: number, skip: ReadonlySet<string> = new Set()): string[] {
  const seen = new Set(skip);
  const kept: string[] = [];
  for (const t of tokens(text)) {
    if (!isContentWord(t.key, stop) || seen.has(t.key)) continue;
    seen.add(t.key);
    kept.push(t.surface);
    if (kept.length >= max) break;
  }
  return kept;
}

/** Words a follow-up's context holds at most: what it points back at, not the whole conversation. */
const MAX_CONTEXT_WORDS = 8;
/** Fewer words than this from the latest exchange: older turns are read too. */
const MIN_CONTEXT_WORDS = 3;

export interface ContextTurn {
  role: string;
  /** PII cut out. */
  text: string;
}

/**
 * What a follow-up points back at, from the turns before the user's latest
 * message (oldest first), nearest first, as anaphora resolve: the user's
 * previous message (the request it follows up), the assistant's question it
 * answers ("Have you planned the honeymoon?" -> "Is the Maldives good in
 * June?": the question names what the reply is about), the topical words of
 * what the assistant said last (a category's terms: "Which one has the better
 * camera?" after two phones named); older turns only when those give fewer
 * than MIN_CONTEXT_WORDS, and never past a message that changed the subject.
 * Content words, each once, none the latest message has, chatter left out; a
 * turn with more than fit gives its topical ones first. At most
 * MAX_CONTEXT_WORDS, in conversation order.
 */
export function followUpContext(
  earlier: readonly ContextTurn[],
  opts: { answersQuestion: boolean; stop: ReadonlySet<string>; own: readonly string[]; topical: ReadonlySet<string> },
): string {
  const { stop, topical } = opts;
  const seen = new Set(opts.own);
  const picked: { turn: number; at: number; surface: string }[] = [];
  const take = (turn: number, text: string, topicalOnly: boolean, offset = 0) => {
    const room = MAX_CONTEXT_WORDS - picked.length;
    if (room <= 0) return;
    const words = new Map<string, { at: number; surface: string; topical: boolean }>();
    tokens(text).forEach((t, i) => {
      if (!isContentWord(t.key, stop) || CHATTER.has(t.key) || seen.has(t.key) || words.has(t.key)) return;
      if (topicalOnly && !topical.has(t.key)) return;
      words.set(t.key, { at: offset + i, surface: t.surface, topical: topical.has(t.key) });
    });
    let chosen = [...words.entries()];
    if (chosen.length > room) chosen = [...chosen.filter(([, w]) => w.topical), ...chosen.filter(([, w]) => !w.topical)].slice(0, room);
    for (const [key, w] of chosen) {
      seen.add(key);
      picked.push({ turn, at: w.at, surface: w.surface });
    }
  };
  const last = earlier.length - 1;
  let previousUser = last;
  while (previousUser >= 0 && earlier[previousUser].role !== 'user') previousUser -= 1;
  if (previousUser >= 0) take(previousUser, earlier[previousUser].text, false);
  const assistant = last >= 0 && earlier[last].role !== 'user' ? earlier[last].text : '';
  if (assistant) {
    // The question sentences come after the rest in the message (positions from its length on): the two readings never tie.
    if (opts.answersQuestion) take(last, questionsOf(assistant), false, assistant.length);
    take(last, assistant, true);
  }
  for (let i = Math.min(previousUser, last) - 1; i >= 0 && picked.length < MIN_CONTEXT_WORDS; i -= 1) {
    if (earlier[i + 1].role === 'user' && TOPIC_SHIFT.test(earlier[i + 1].text.toLowerCase())) break;
    take(i, earlier[i].text, earlier[i].role !== 'user');
  }
  picked.sort((a, b) => a.turn - b.turn || a.at - b.at);
  return picked.map((p) => p.surface).join(' ');
}

/** A message's questions (its sentences with a question mark). */
function questionsOf(text: string): string {
  return (text.match(/[^.!?？]+[?？]/gu) ?? []).join(' ');
}

/** The query: the context a follow-up needs, then the message's own part, at most MAX_QUERY_CHARS (cut at a word). */
export function intentQuery(shape: IntentShape, context: string): string {
  if (!shape.hasIntent) return '';
  const prefix = shape.followUp && context ? [context] : [];
  if (shape.lead) prefix.push(shape.lead);
  const query = prefix.length ? `${prefix.join(' ')}: ${shape.text}` : shape.text;
  if (query.length <= MAX_QUERY_CHARS) return query;
  const cut = query.slice(0, MAX_QUERY_CHARS + 1);
  const space = cut.lastIndexOf(' ');
  if (space > 0) return cut.slice(0, space).trim();
  // One long run without a space: cut it, never between the two halves of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(query[MAX_QUERY_CHARS - 1]) ? MAX_QUERY_CHARS - 1 : MAX_QUERY_CHARS;
  return query.slice(0, end);
}
