/**
 * A compact, exact base64url form of a flat record of known fields, for the
 * signed tokens that ride in URLs (domain/delivery/tracking-token.ts): a field
 * is a one-byte tag (its place in the codec's list), a UUID 16 bytes, a number
 * a varint. JSON with names costs URLs three times the bytes and the auction
 * the time to build them (bench/history.md, "auction").
 *
 * A field's tag is its index, so a codec's list only ever grows at its end:
 * what was encoded stays decodable. Fields appear in list order, each once.
 */
export type FieldType = 'text' | 'uint' | 'flag';
type Value<T extends FieldType> = T extends 'text' ? string : T extends 'uint' ? number : true;
export type CompactRecord<F extends Readonly<Record<string, FieldType>>> = { [K in keyof F]?: Value<F[K]> };

const UUID_TAG = 0x80;
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i += 1) HEX['0123456789abcdef'.charCodeAt(i)] = i;
/** A field but a text takes at most 17 bytes (a tag and a UUID); a text's UTF-8 length (< 2^21) a varint of at most 3. */
const MAX_TEXT_CHARS = 1 << 18;

// One scratch buffer for every encode (the auction is single-threaded); a record too large for it gets its own.
const scratch = Buffer.allocUnsafe(16 * 1024);

export function compactCodec<F extends Readonly<Record<string, FieldType>>>(fields: F) {
  const names = Object.keys(fields) as (keyof F & string)[];
  const types = names.map((name) => fields[name]);
  if (names.length > UUID_TAG) throw new Error('a compact record has at most 128 fields');

  function encode(record: CompactRecord<F>): string {
    let out = scratch;
    let at = 0;
    for (let tag = 0; tag < names.length; tag += 1) {
      const value = record[names[tag]];
      if (value === undefined) continue;
      const type = types[tag];
      if (typeof value === 'string' && value.length > MAX_TEXT_CHARS) throw new RangeError(`${names[tag]}: longer than ${MAX_TEXT_CHARS} characters`);
      // Room for the field at its longest, here or in a buffer of this record's own.
      const room = typeof value === 'string' ? 4 + value.length * 3 : 17;
      if (at + room > out.length) out = Buffer.concat([out.subarray(0, at)], 2 * (at + room));
      if (type === 'flag') {
        if (value !== true) throw new TypeError(`${names[tag]}: a flag is true or absent`);
        out[at++] = tag;
      } else if (type === 'uint') {
        if (!Number.isSafeInteger(value) || (value as number) < 0) throw new TypeError(`${names[tag]}: not a non-negative safe integer`);
        out[at++] = tag;
        at = writeVarint(out, at, value as number);
      } else if (typeof value !== 'string') {
        throw new TypeError(`${names[tag]}: not a string`);
      } else if (value.length === 36 && CANONICAL_UUID.test(value)) {
        out[at++] = tag | UUID_TAG;
        at = writeUuid(out, at, value);
      } else {
        out[at++] = tag;
        const length = Buffer.byteLength(value, 'utf8');
        at = writeVarint(out, at, length);
        at += out.write(value, at, 'utf8');
      }
    }
    return out.toString('base64url', 0, at);
  }

  /**
   * The record, or null for bytes this codec did not write (unknown tag, out of order, truncated).
   * Its fields go `into` the object given (several records' fields in one object, no copies).
   */
  function decode<T extends object = object>(text: string, into?: T): (T & CompactRecord<F>) | null {
    const bytes = Buffer.from(text, 'base64url');
    const record = (into ?? {}) as Record<string, string | number | true>;
    let at = 0;
    let last = -1;
    while (at < bytes.length) {
      const tag = bytes[at++] & ~UUID_TAG;
      const isUuid = (bytes[at - 1] & UUID_TAG) !== 0;
      if (tag >= names.length || tag <= last || (isUuid && types[tag] !== 'text')) return null;
      last = tag;
      if (types[tag] === 'flag') {
        record[names[tag]] = true;
        continue;
      }
      if (isUuid) {
        if (at + 16 > bytes.length) return null;
        record[names[tag]] = readUuid(bytes, at);
        at += 16;
        continue;
      }
      const varint = readVarint(bytes, at);
      if (!varint) return null;
      at = varint.at;
      if (types[tag] === 'uint') {
        record[names[tag]] = varint.value;
      } else {
        if (at + varint.value > bytes.length) return null;
        record[names[tag]] = bytes.toString('utf8', at, at + varint.value);
        at += varint.value;
      }
    }
    return record as T & CompactRecord<F>;
  }

  return { encode, decode };
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

function readVarint(bytes: Buffer, start: number): { value: number; at: number } | null {
  let value = 0;
  let scale = 1;
  for (let at = start; at < bytes.length && at - start < 8; at += 1) {
    value += (bytes[at] & 0x7f) * scale;
    if (bytes[at] < 0x80) return Number.isSafeInteger(value) ? { value, at: at + 1 } : null;
    scale *= 0x80;
  }
  return null;
}

function writeUuid(out: Buffer, at: number, uuid: string): number {
  let next = at;
  for (let i = 0; i < 36; i += 2) {
    if (i === 8 || i === 13 || i === 18 || i === 23) i += 1;
    out[next++] = (HEX[uuid.charCodeAt(i)] << 4) | HEX[uuid.charCodeAt(i + 1)];
  }
  return next;
}

/** The UUID's canonical text, written as bytes and read as one flat string (slices joined were cons strings). */
const uuidText = Buffer.alloc(36, '-');
const HEX_DIGITS = Buffer.from('0123456789abcdef');
function readUuid(bytes: Buffer, at: number): string {
  let out = 0;
  for (let i = 0; i < 16; i += 1) {
    if (out === 8 || out === 13 || out === 18 || out === 23) out += 1;
    uuidText[out++] = HEX_DIGITS[bytes[at + i] >> 4];
    uuidText[out++] = HEX_DIGITS[bytes[at + i] & 15];
  }
  return uuidText.toString('latin1');
}
