/** The `stopword` package (MIT) ships no types: its lists are arrays of words keyed by ISO 639-3 code. */
declare module 'stopword' {
  const lists: Record<string, readonly string[]>;
  export = lists;
}
