/**
 * The one CSV writer: every CSV the CLI prints or writes (list and record output, the
 * codes file) makes its cells here, so quoting and the formula guard are the same
 * everywhere.
 *
 * Quoting (RFC 4180): a cell holding `"`, `,`, CR or LF is wrapped in double quotes and
 * each `"` doubled; other cells are written as they are. Lines are joined by the caller
 * (LF; a reader per RFC 4180 accepts it).
 *
 * Formula guard (OWASP "CSV injection"): a spreadsheet evaluates a cell that begins with
 * `=`, `+`, `-`, `@`, TAB (0x09) or CR (0x0D), so a server's text such as
 * `=HYPERLINK("http://x")` could run when the file is opened. Such a cell is written with
 * a single quote `'` in front (`'=HYPERLINK(…)`), which spreadsheets show as text; a
 * program reading the file sees the `'` and can strip it.
 *
 * Exception, precisely: a cell whose WHOLE text is a plain decimal number, matching
 * `-?(digits[.digits] | .digits)` with an optional exponent `e±digits` (`-25.00`, `-3`,
 * `-0.5`, `-1e+21`), is left as it is, so negative amounts stay numbers in a spreadsheet;
 * such a cell cannot carry a formula. A number written with a leading `+` is guarded like
 * any other text (nothing this CLI writes has one).
 */

/** A plain decimal number, negative or not: data, not a formula. */
const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** First characters that make a spreadsheet evaluate a cell (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Characters that need the cell quoted (RFC 4180). */
const NEEDS_QUOTES = /[",\r\n]/;

/** The text of a cell that a spreadsheet would evaluate, neutralised with a leading `'`. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * One CSV cell: null and undefined are empty, numbers and booleans as `String` writes
 * them, objects as JSON, strings as they are; then the formula guard, then quoting.
 */
export function csvCell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value as number | boolean | bigint);
  const guarded = guardFormula(text);
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** One CSV line, without its line break. */
export function csvLine(values: readonly unknown[]): string {
  return values.map(csvCell).join(',');
}
