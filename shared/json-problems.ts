/**
 * What a JSONC parser error means, in words: jsonc-parser's ParseErrorCode values (a const enum, so the
 * numbers are written out). Used for the files of the apps Spillway connects and for a pasted snippet.
 */
export const JSON_PROBLEMS: Readonly<Record<number, string>> = {
  1: 'a character that does not belong there',
  2: 'a number that is not written right',
  3: 'a name in double quotes was expected',
  4: 'a value was expected',
  5: 'a colon was expected',
  6: 'a comma was expected',
  7: 'a closing } was expected',
  8: 'a closing ] was expected',
  9: 'the text goes on after the end',
  10: 'a comment is not written right',
  11: 'a comment is not closed',
  12: 'a text in quotes is not closed',
  13: 'a number ends too early',
  14: 'a \\u escape is not written right',
  15: 'a backslash escape is not known',
  16: 'a character that must be escaped',
};

/** The words for a parser error code. */
export const jsonProblem = (code: number): string => JSON_PROBLEMS[code] ?? 'something unexpected';
