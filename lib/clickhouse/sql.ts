/**
 * The one audited module that turns values into ClickHouse SQL literals.
 * ClickHouse 18.16 (our dev/CI server) has no query parameters, so every value
 * that reaches SQL goes through `literal` or `identifier`; nothing else in the
 * codebase may build SQL from strings.
 */

/** Escapes a string literal: backslash and single quote, plus control bytes. */
function quoteString(value: string): string {
  return `'${value.replace(/[\\'\u0000-\u001f\u007f]/g, (ch) => {
    switch (ch) {
      case '\\':
        return '\\\\';
      case "'":
        return "\\'";
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      case '\0':
        return '\\0';
      default:
        return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    }
  })}'`;
}

/**
 * A negative number in parentheses: spliced after a minus (`5-${-1}`) its sign
 * would otherwise make `--`, which starts a comment and drops the rest of the line.
 */
const signed = (digits: string) => (digits.startsWith('-') ? `(${digits})` : digits);

export type SqlValue = string | number | bigint | boolean | Date | null | SqlValue[];

/** A value as a ClickHouse literal. Numbers must be finite; dates become UTC DateTime. */
export function literal(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  switch (typeof value) {
    case 'string':
      return quoteString(value);
    case 'bigint':
      return signed(value.toString());
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`cannot use ${value} as a SQL literal`);
      return signed(String(value));
    default:
      if (value instanceof Date) {
        return `toDateTime(${Math.floor(value.getTime() / 1000)}, 'UTC')`;
      }
      throw new Error(`unsupported SQL literal type: ${typeof value}`);
  }
}

/**
 * A parenthesised list for `x IN (...)` (ClickHouse 18.16 refuses an array
 * literal there). An empty list has no SQL form: callers decide what it means.
 */
export function inList(values: SqlValue[]): string {
  if (values.length === 0) throw new Error('an IN list needs at least one value');
  return `(${values.map(literal).join(', ')})`;
}

/** An identifier (database, table, column) from our own code: letters, digits, underscore only. */
export function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid SQL identifier: ${name}`);
  return name;
}

/**
 * Tagged template that escapes every interpolated value:
 *   sql`SELECT count() FROM events WHERE campaign_id = ${id}`
 */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? literal(values[i]) : ''), '');
}
