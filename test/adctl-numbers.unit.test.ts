/** adctl's numeric flags read decimal digits only (bin/adctl-numbers.ts). */
import { decimalFlag } from '../bin/adctl-numbers';

class Usage extends Error {}
const usage = (m: string) => new Usage(m);

describe('decimalFlag', () => {
  test.each([
    ['16', 'decimal', 16],
    ['1.25', 'decimal', 1.25],
    ['0', 'integer', 0],
    ['-3', 'integer', -3],
    ['007', 'integer', 7],
  ] as const)('%s (%s) is %d', (value, kind, expected) => {
    expect(decimalFlag(value, 'n', usage, kind)).toBe(expected);
  });

  test.each([
    ['0x10', 'decimal'],
    ['0b11', 'decimal'],
    ['0o7', 'decimal'],
    ['1e3', 'decimal'],
    ['Infinity', 'decimal'],
    ['', 'decimal'],
    [' ', 'decimal'],
    [' 5', 'decimal'],
    ['5 ', 'decimal'],
    ['.5', 'decimal'],
    ['5.', 'decimal'],
    ['+5', 'decimal'],
    ['1_000', 'decimal'],
    ['1.5', 'integer'],
    ['0x10', 'integer'],
    ['1'.repeat(16), 'integer'],
  ] as const)('%j (%s) is refused with a usage error naming the flag', (value, kind) => {
    expect(() => decimalFlag(value, 'floor-cpm', usage, kind)).toThrow(Usage);
    expect(() => decimalFlag(value, 'floor-cpm', usage, kind)).toThrow(/^--floor-cpm must be a decimal (number|integer)/);
  });
});
