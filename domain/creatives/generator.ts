import { config } from '../../lib/config';

/** What the platform knows when it writes a chat card for an advertiser. */
export interface CreativeContext {
  adGroupName: string;
  contextHints: string[];
  accountName: string;
  accountUrl: string;
}

export interface GeneratedCopy {
  /** At most 30 characters (the chat card limit). */
  title: string;
  body: string;
}

export interface CreativeGenerator {
  generate(context: CreativeContext): Promise<GeneratedCopy>;
}

export const MAX_CARD_TITLE = 30;

/** Cuts at a word boundary where possible; never returns more than `max` characters. */
export function clip(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return (space >= max / 2 ? cut.slice(0, space) : cut).trim();
}

const hostOf = (url: string) => {
  try {
    return new URL(url.includes('://') ? url : `https://${url}`).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
};

/**
 * The default generator: deterministic copy from the names and hints, so the
 * same inputs always give the same card (and tests can assert it).
 */
export const templateGenerator: CreativeGenerator = {
  async generate({ adGroupName, contextHints, accountName, accountUrl }) {
    const brand = accountName.trim() || hostOf(accountUrl) || adGroupName.trim() || 'Sponsored';
    const topic = contextHints.map((h) => h.trim()).filter(Boolean)[0] ?? adGroupName.trim();
    const title = clip(topic ? `${brand}: ${topic}` : brand, MAX_CARD_TITLE) || clip(brand, MAX_CARD_TITLE);
    const hints = contextHints
      .map((h) => h.trim())
      .filter(Boolean)
      .slice(0, 3);
    const about = hints.length ? ` for ${hints.join(', ')}` : '';
    const where = accountUrl ? ` Learn more at ${hostOf(accountUrl)}.` : '';
    return { title, body: `Discover ${brand}${about}.${where}` };
  },
};

/**
 * A generator backed by an OpenAI-compatible chat-completions endpoint. Its
 * answer is validated and clipped; anything unusable falls back to the template.
 */
export function openAiCompatibleGenerator(url: string, apiKey: string | undefined, model: string): CreativeGenerator {
  return {
    async generate(context) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
          body: JSON.stringify({
            model,
            response_format: { type: 'json_object' },
            messages: [
              {
                role: 'system',
                content: `Write a sponsored chat card. Reply with JSON {"title": string of at most ${MAX_CARD_TITLE} characters, "body": one or two sentences}.`,
              },
              { role: 'user', content: JSON.stringify(context) },
            ],
          }),
          signal: AbortSignal.timeout(15_000),
        });
        if (!res.ok) throw new Error(`generator answered ${res.status}`);
        const payload = (await res.json()) as { choices?: { message?: { content?: string } }[] };
        const copy = JSON.parse(payload.choices?.[0]?.message?.content ?? '') as Partial<GeneratedCopy>;
        if (typeof copy.title !== 'string' || typeof copy.body !== 'string' || !copy.title.trim()) throw new Error('unusable answer');
        return { title: clip(copy.title, MAX_CARD_TITLE), body: copy.body.trim() };
      } catch (err) {
        console.error(`creative generator failed, using the template: ${(err as Error).message}`);
        return templateGenerator.generate(context);
      }
    },
  };
}

export function createCreativeGenerator(): CreativeGenerator {
  const { url, apiKey, model } = config.creativeGenerator;
  return url ? openAiCompatibleGenerator(url, apiKey, model) : templateGenerator;
}
