/**
 * adctl's numeric flags: plain decimal numbers only. `Number()` alone reads
 * `0x10` as 16, `0b11` as 3, `1e3` as 1000, `Infinity` as Infinity and
 * `' '` as 0, so an operator's typo would become a different setting. Ranges
 * stay with the command or the domain that owns them.
 */

const INTEGER = /^-?[0-9]{1,15}$/;
const DECIMAL = /^-?[0-9]{1,15}(?:\.[0-9]{1,15})?$/;

/** The value of `--flag` as a number (`integer`: no fraction), or the usage error naming the flag. */
export function decimalFlag(value: string, flag: string, usage: (message: string) => Error, kind: 'integer' | 'decimal' = 'decimal'): number {
  if (!(kind === 'integer' ? INTEGER : DECIMAL).test(value))
    throw usage(
      `--${flag} must be a decimal ${kind === 'integer' ? 'integer (digits only)' : 'number (digits, an optional fraction)'}, not ${JSON.stringify(value.slice(0, 32))}`,
    );
  return Number(value);
}
