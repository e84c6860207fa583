import { loadModule } from 'cld3-asm';

/**
 * The conversation's language, ISO 639-1, by Google's CLD3 (the cld3-asm
 * package: CLD3 compiled to WebAssembly, MIT; CLD3 itself Apache-2.0). The
 * chat host's Accept-Language is only the fallback: when the detector is not
 * loaded yet, the text is too short to tell, or CLD3 is not sure.
 *
 * The detector is WebAssembly, so it loads asynchronously: the auction awaits
 * loadLanguageDetector() before it serves (auction/app.ts).
 */
type Identifier = { findLanguage(text: string): { language: string; probability: number; is_reliable: boolean } };

let identifier: Identifier | undefined;
let loading: Promise<void> | undefined;

/** CLD3 reads at most this many bytes of the text: enough to tell a language, bounded in cost. */
const MAX_BYTES = 512;
/** Below this many letters no detection is trusted. */
const MIN_LETTERS = 12;
const MIN_PROBABILITY = 0.7;
/**
 * How long compiling the WebAssembly may take. The loader's own default (3 s) is
 * too short on a busy machine (a test suite beside CPU-bound work failed on it),
 * and nothing is served before the detector loads anyway.
 */
const LOAD_TIMEOUT_MS = 30_000;

export function loadLanguageDetector(): Promise<void> {
  loading ??= loadModule({ timeout: LOAD_TIMEOUT_MS }).then(
    (factory) => {
      identifier = factory.create(0, MAX_BYTES);
    },
    (err: unknown) => {
      // A load that failed is tried again by the next caller, not remembered as failed for good.
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

export const languageDetectorLoaded = () => identifier !== undefined;

/** CLD3's language codes that are not ISO 639-1 (its own older ones and script variants). */
const ISO_639_1: Record<string, string> = {
  iw: 'he',
  jw: 'jv',
  'zh-Latn': 'zh',
  'ja-Latn': 'ja',
  'ru-Latn': 'ru',
  'el-Latn': 'el',
  'bg-Latn': 'bg',
  'hi-Latn': 'hi',
  fil: 'tl',
};

/** The language of `text` (ISO 639-1), or undefined when it cannot be told with confidence. */
export function detectTextLanguage(text: string): string | undefined {
  if (!identifier) return undefined;
  let letters = 0;
  for (let i = 0; i < text.length && letters < MIN_LETTERS; i += 1) if (/\p{L}/u.test(text[i])) letters += 1;
  if (letters < MIN_LETTERS) return undefined;
  const found = identifier.findLanguage(text);
  if (found.language === 'und' || (!found.is_reliable && found.probability < MIN_PROBABILITY)) return undefined;
  const code = ISO_639_1[found.language] ?? found.language;
  return /^[a-z]{2}$/.test(code) ? code : undefined;
}

/** The primary subtag of an Accept-Language header's first entry, when it is an ISO 639-1 code. */
export function headerLanguage(header: string | undefined): string | undefined {
  const tag = header?.split(',')[0]?.trim().slice(0, 3).toLowerCase();
  const primary = tag?.split(/[-_;]/)[0];
  return primary && /^[a-z]{2}$/.test(primary) ? primary : undefined;
}
