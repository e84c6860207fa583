/**
 * Inserting a batch when one row may be poison: ClickHouse refuses a whole
 * INSERT for one row it cannot parse (a lone UTF-16 surrogate, a bad date...),
 * and a mover that retries the same batch forever stops for everyone. Here a
 * refused batch is split in halves until each refused row stands alone; every
 * other row is inserted (each part of the split is one atomic insert). Errors
 * that say nothing about the data (ClickHouse down, a timeout, memory) are
 * thrown as they are, so that the caller retries the whole batch later.
 */

/**
 * ClickHouse error codes that mean "this data cannot be stored" (ErrorCodes.cpp):
 * the same row would be refused again on every retry.
 */
const DATA_REFUSAL_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE (a lone surrogate)
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  32, // ATTEMPT_TO_READ_AFTER_EOF
  33, // CANNOT_READ_ALL_DATA
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA (unknown field, bad JSON)
  131, // TOO_LARGE_STRING_SIZE
  190, // SIZES_OF_ARRAYS_DOESNT_MATCH
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
]);

/**
 * The ClickHouse error code of a failed request, or null when the server did
 * not answer with one. The client parses only current servers' messages
 * (`... (TYPE_NAME)`); 18.16 answers `Code: 25, e.displayText() = ...`.
 */
export function clickhouseErrorCode(err: unknown): number | null {
  const own = (err as { code?: unknown } | null)?.code;
  if (typeof own === 'string' && /^\d+$/.test(own)) return Number(own);
  const match = /^Code: (\d+)[,.]/.exec((err as Error | null)?.message ?? '');
  return match ? Number(match[1]) : null;
}

export const isDataRefusal = (err: unknown): boolean => DATA_REFUSAL_CODES.has(clickhouseErrorCode(err) ?? -1);

export interface RefusedRow<T> {
  row: T;
  error: string;
}

/**
 * Inserts `rows` with `insert`; rows ClickHouse refuses are returned with the
 * refusal, the rest are stored. One bad row among n costs about 2 log2(n)
 * inserts, and only when there is one.
 */
export async function insertSettingAsideRefused<T>(rows: readonly T[], insert: (rows: readonly T[]) => Promise<void>): Promise<RefusedRow<T>[]> {
  if (rows.length === 0) return [];
  try {
    await insert(rows);
    return [];
  } catch (err) {
    if (!isDataRefusal(err)) throw err;
    if (rows.length === 1) return [{ row: rows[0], error: (err as Error).message }];
  }
  const half = Math.ceil(rows.length / 2);
  const refused = await insertSettingAsideRefused(rows.slice(0, half), insert);
  return refused.concat(await insertSettingAsideRefused(rows.slice(half), insert));
}
