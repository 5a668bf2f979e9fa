/**
 * Text from a delivery, made safe for a terminal. A webhook's `event` and `event_id` are
 * printed on every line and used as the dedupe key, so they must be printable: no control,
 * format (bidi overrides, zero-width), private-use, unassigned or line-separator character,
 * not blank, at most 200 characters. Anything else a payload carries is shown escaped.
 */

/** Longest `event` or `event_id` accepted, in characters. */
export const MAX_NAME_LENGTH = 200;

// The Unicode-property patterns cost about half a millisecond to build and first run, in
// every command that prints: they are made on first use, and text made only of the
// characters below (nearly all of it: printable ASCII and Latin-1 but the soft hyphen, and
// the typography this CLI prints), which holds none of the characters they look for, does
// without them. A test checks each of these characters against the patterns.
export const PLAIN_CHARACTERS =
  '\\x20-\\x7e\\xa0-\\xac\\xae-\\xff\\u2013\\u2014\\u2022\\u2026\\u2190-\\u2193\\u2212\\u2500-\\u257f\\u2713-\\u2717';
const PLAIN_NAME = new RegExp(`^(?=.*\\S)[${PLAIN_CHARACTERS}]{1,${MAX_NAME_LENGTH}}$`);
const PLAIN_TEXT = new RegExp(`^[${PLAIN_CHARACTERS}]*$`);
const PLAIN_JSON = new RegExp(`^[${PLAIN_CHARACTERS}\\n]*$`);

/**
 * A zero-width joiner between two emoji (👩‍💻: an emoji, its variation selector or skin
 * tone, ZWJ, an emoji) is part of one picture, drawn as such by a terminal: it is not
 * escaped. Anywhere else it is a format character like the others.
 */
const EMOJI_ZWJ = '(?<=\\p{Extended_Pictographic}(?:\\uFE0F|\\p{Emoji_Modifier})?)\\u200D(?=\\p{Extended_Pictographic})';

let patterns: { printable: RegExp; unsafe: RegExp; notText: RegExp } | undefined;
function unicodePatterns(): NonNullable<typeof patterns> {
  return (patterns ??= {
    printable: new RegExp(`^(?=[^]*\\S)(?:[^\\p{C}\\p{Zl}\\p{Zp}]|${EMOJI_ZWJ}){1,${MAX_NAME_LENGTH}}$`, 'u'),
    /**
     * Characters a terminal may act on that JSON.stringify leaves as they are (a raw newline
     * in its output is always indentation: inside strings it writes `\n`).
     */
    unsafe: new RegExp(`(?!${EMOJI_ZWJ})(?:[^\\P{C}\\n]|[\\p{Zl}\\p{Zp}])`, 'gu'),
    notText: new RegExp(`(?!${EMOJI_ZWJ})[\\p{C}\\p{Zl}\\p{Zp}]`, 'gu'),
  });
}

/** A non-blank string of printable characters, at most MAX_NAME_LENGTH of them. */
export function isPrintableName(value: string): boolean {
  return PLAIN_NAME.test(value) || unicodePatterns().printable.test(value);
}

/**
 * An id from a payload as text: a printable name, or a whole number written in digits (the
 * document leaves id shapes open, and a server may number its orders); else undefined.
 */
export function payloadId(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  return typeof value === 'string' && isPrintableName(value) ? value : undefined;
}

function escapeUnits(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * JSON.stringify whose output is safe on a terminal: the characters it leaves raw (DEL, C1
 * controls, bidi and other format characters, line separators) are written as \u escapes
 * of four hex digits, which are valid inside JSON strings and parse back to the same value.
 */
export function safeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  return PLAIN_JSON.test(json) ? json : json.replace(unicodePatterns().unsafe, escapeUnits);
}

/** Free text (a message) with every character a terminal may act on written as \u escapes of four hex digits. */
export function escapeText(value: string): string {
  return PLAIN_TEXT.test(value) ? value : value.replace(unicodePatterns().notText, escapeUnits);
}

/** A string for a terminal line: as it is when printable, else JSON-quoted with escapes. */
export function displayText(value: string): string {
  return isPrintableName(value) ? value : safeJson(value);
}
