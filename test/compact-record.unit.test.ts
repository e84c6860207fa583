import { randomUUID } from 'node:crypto';
import { compactCodec } from '../lib/compact-record';

const codec = compactCodec({ id: 'text', name: 'text', amount: 'uint', on: 'flag', note: 'text' });
const roundTrip = (record: Parameters<typeof codec.encode>[0]) => codec.decode(codec.encode(record));

describe('compact records', () => {
  it('give back every record exactly: texts, UUIDs, numbers, flags, absent fields', () => {
    let every = '';
    for (let i = 0; i < 0x3000; i += 1) every += String.fromCharCode(i);
    const uuid = randomUUID();
    const records = [
      {},
      { id: uuid, name: '', amount: 0, on: true as const, note: 'x' },
      { id: uuid.toUpperCase(), amount: 127 },
      { id: `${uuid.slice(0, 35)}g`, amount: 128 },
      { id: uuid.replaceAll('-', ''), amount: Number.MAX_SAFE_INTEGER },
      { name: 'é\u{1F600}\u2028"\\', note: every },
      // Longer than the scratch buffer, a UUID after it.
      { id: 'x'.repeat(20_000), name: 'ü'.repeat(9_000), note: uuid },
    ];
    for (const record of records) expect(roundTrip(record)).toEqual(record);
    expect(codec.encode({ id: uuid }).length).toBe(23); // tag + 16 bytes, base64url
  });

  it('refuses to encode values of the wrong type', () => {
    expect(() => codec.encode({ amount: -1 })).toThrow(TypeError);
    expect(() => codec.encode({ amount: 1.5 })).toThrow(TypeError);
    expect(() => codec.encode({ amount: 2 ** 53 })).toThrow(TypeError);
    expect(() => codec.encode({ on: false as never })).toThrow(TypeError);
    expect(() => codec.encode({ name: 3 as never })).toThrow(TypeError);
    expect(() => codec.encode({ name: 'x'.repeat((1 << 18) + 1) })).toThrow(RangeError);
  });

  it('decodes to null what it did not write', () => {
    const bytes = (...b: number[]) => Buffer.from(b).toString('base64url');
    const valid = Buffer.from(codec.encode({ id: randomUUID(), name: 'abc', amount: 300 }), 'base64url');
    for (let end = 1; end < valid.length; end += 1) {
      const cut = valid.subarray(0, end).toString('base64url');
      // A cut between two fields is a record of the fields before it.
      if (end !== 17 && end !== 22) expect(codec.decode(cut)).toBeNull();
    }
    for (const bad of [
      bytes(5), // no such field
      bytes(1, 1, 0x61, 0, 1, 0x61), // out of order
      bytes(1, 1, 0x61, 1, 1, 0x62), // twice
      bytes(2 | 0x80, ...new Array(16).fill(0)), // a UUID where a number goes
      bytes(2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), // a varint past 8 bytes
      bytes(2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), // past 2^53
      bytes(1, 5, 0x61), // a text longer than what follows
    ])
      expect(codec.decode(bad)).toBeNull();
    expect(codec.decode(bytes(3))).toEqual({ on: true });
  });
});
