import { isIP } from 'node:net';
import { COUNTRY_CODES } from '../domain/countries';
import { isTimeZone, MAX_TIME_ZONE_LENGTH } from '../lib/time-zones';
import { bodyObject, parseOrThrow } from '../lib/validation';
import { AD_FORMATS, adRequestSchema, HEADER_VALUE, type AdFormat, type AdRequest } from './request-schema';

/**
 * The ad request body as the schema parses it (request-schema.ts), on the hot
 * route: the common request (a contextual one of the fields chat hosts send,
 * every one of them valid) is checked and built here, in the schema's key
 * order with its defaults; anything else (an opener, site or app, the privacy
 * signals `regs` and `user`, message timestamps as text, any invalid or unknown field, a NUL character) goes to
 * the schema itself, which answers it and words its errors. Either way the
 * result is the schema's: test/auction/request-fast-path.unit.test.ts compares them.
 */
export function parseAdRequest(body: unknown): AdRequest {
  return (isPlainObject(body) && commonRequest(body)) || parseOrThrow(adRequestSchema, bodyObject(body));
}

const KNOWN_FIELDS = new Set([
  'userId',
  'request_type',
  'chatId',
  'nAdsBefore',
  'messages',
  'ad_formats',
  'prefetched',
  'request_id',
  'country_code',
  'region',
  'city',
  'device',
  'timezone',
  'config',
  'ip',
  'user_agent',
  'language',
  'tmax',
  'bcat',
  'badv',
]);
const FORMATS: ReadonlySet<unknown> = new Set(AD_FORMATS);
const DEVICES: ReadonlySet<unknown> = new Set(['mobile', 'desktop', 'tablet']);
const LANGUAGE = /^[A-Za-z]{2}$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A string of `min`..`max` UTF-16 units without NUL (what parseOrThrow refuses after the schema). */
const isText = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max && !v.includes('\0');
const isIntIn = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const optionalText = (v: unknown, max: number) => v === undefined || isText(v, 1, max);

/** The common request, or null when the schema must decide. */
function commonRequest(body: Record<string, unknown>): AdRequest | null {
  for (const key in body) if (!KNOWN_FIELDS.has(key) || body[key] === undefined) return null;
  const { userId, chatId, nAdsBefore, request_id, region, city, device, timezone, ip, user_agent, language, tmax } = body;
  if (!isText(userId, 1, 200) || userId.includes('@')) return null;
  if (body.request_type !== undefined && body.request_type !== 'contextual') return null;
  if (!isText(chatId, 1, 200) || (nAdsBefore !== undefined && !isIntIn(nAdsBefore, 0, 10_000))) return null;
  if (!optionalText(request_id, 200) || !optionalText(region, 200) || !optionalText(city, 200)) return null;
  if (user_agent !== undefined && (!isText(user_agent, 1, 1000) || !HEADER_VALUE.test(user_agent))) return null;
  if (!DEVICES.has(device) || !isText(timezone, 1, MAX_TIME_ZONE_LENGTH) || !isTimeZone(timezone)) return null;
  if (ip !== undefined && (!isText(ip, 0, Infinity) || isIP(ip) === 0)) return null;
  if (language !== undefined && (typeof language !== 'string' || !LANGUAGE.test(language))) return null;
  if (tmax !== undefined && !isIntIn(tmax, 50, 2000)) return null;
  if (body.prefetched !== undefined && typeof body.prefetched !== 'boolean') return null;
  const country = typeof body.country_code === 'string' && !body.country_code.includes('\0') ? body.country_code.toUpperCase() : null;
  const messages = conversation(body.messages);
  const adFormats = formats(body.ad_formats);
  const config = requestConfig(body.config);
  const bcat = body.bcat === undefined ? undefined : texts(body.bcat, 100, 20);
  const badv = body.badv === undefined ? undefined : texts(body.badv, 1000, 253);
  if (country === null || !COUNTRY_CODES.has(country) || !messages || !adFormats || !config || bcat === null || badv === null) return null;
  // The schema's output: its keys in its order, the absent optional ones left out, the defaults filled in.
  const out: Record<string, unknown> = { userId, request_type: 'contextual', chatId };
  if (nAdsBefore !== undefined) out.nAdsBefore = nAdsBefore;
  out.messages = messages;
  out.ad_formats = adFormats;
  out.prefetched = body.prefetched ?? false;
  if (request_id !== undefined) out.request_id = request_id;
  out.country_code = country;
  if (region !== undefined) out.region = region;
  if (city !== undefined) out.city = city;
  out.device = device;
  out.timezone = timezone;
  out.config = config;
  if (ip !== undefined) out.ip = ip;
  if (user_agent !== undefined) out.user_agent = user_agent;
  if (language !== undefined) out.language = language.toLowerCase();
  if (tmax !== undefined) out.tmax = tmax;
  if (bcat !== undefined) out.bcat = bcat;
  if (badv !== undefined) out.badv = badv;
  return out as AdRequest;
}

/** A contextual request's messages: at least two, roles alternating, ending with the user's turn and the assistant's answer. */
function conversation(value: unknown): AdRequest['messages'] | null {
  if (!Array.isArray(value) || value.length < 2 || value.length > 200) return null;
  const out: NonNullable<AdRequest['messages']> = [];
  let previous: unknown = null;
  for (const m of value) {
    if (!isPlainObject(m)) return null;
    let keys = 0;
    for (const key in m) {
      keys += 1;
      if (key !== 'role' && key !== 'content' && key !== 'timestamp') return null;
    }
    const { role, content, timestamp } = m;
    if ((role !== 'user' && role !== 'assistant') || role === previous || !isText(content, 0, 20_000)) return null;
    if (timestamp === undefined) {
      if (keys !== 2) return null;
      out.push({ role, content });
    } else {
      if (typeof timestamp !== 'number' || !(timestamp >= 0)) return null;
      out.push({ role, content, timestamp });
    }
    previous = role;
  }
  return previous === 'assistant' ? out : null;
}

function formats(value: unknown): AdFormat[] | null {
  if (value === undefined) return ['sponsored_message'];
  if (!Array.isArray(value) || value.length < 1 || value.length > 3) return null;
  for (let i = 0; i < value.length; i += 1) if (!FORMATS.has(value[i]) || value.indexOf(value[i]) !== i) return null;
  return [...(value as AdFormat[])];
}

function requestConfig(value: unknown): AdRequest['config'] | null {
  if (value === undefined) return { image_enabled: true };
  if (!isPlainObject(value)) return null;
  for (const key in value) if (key !== 'max_headline_chars' && key !== 'image_enabled') return null;
  const { max_headline_chars: max, image_enabled: image } = value;
  if ((max !== undefined && !isIntIn(max, 30, 1000)) || (image !== undefined && typeof image !== 'boolean')) return null;
  return max === undefined ? { image_enabled: image ?? true } : { max_headline_chars: max, image_enabled: image ?? true };
}

function texts(value: unknown, maxItems: number, maxLength: number): string[] | null {
  if (!Array.isArray(value) || value.length > maxItems) return null;
  for (const item of value) if (!isText(item, 1, maxLength)) return null;
  return [...(value as string[])];
}
