/**
 * Text from a delivery, made safe for a terminal. A webhook's `event` and `event_id` are
 * printed on every line and used as the dedupe key, so they must be printable: no control,
 * format (bidi overrides, zero-width), private-use, unassigned or line-separator character,
 * not blank, at most 200 characters. Anything else a payload carries is shown escaped.
 */

/** Longest `event` or `event_id` accepted, in characters. */
export const MAX_NAME_LENGTH = 200;

const PRINTABLE = new RegExp(`^(?=[^]*\\S)[^\\p{C}\\p{Zl}\\p{Zp}]{1,${MAX_NAME_LENGTH}}$`, 'u');

/**
 * Characters a terminal may act on that JSON.stringify leaves as they are (a raw newline in
 * its output is always indentation: inside strings it writes `\n`).
 */
const UNSAFE = /[^\P{C}\n]|[\p{Zl}\p{Zp}]/gu;

/** A non-blank string of printable characters, at most MAX_NAME_LENGTH of them. */
export function isPrintableName(value: string): boolean {
  return PRINTABLE.test(value);
}

function escapeUnits(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * JSON.stringify whose output is safe on a terminal: the characters it leaves raw (DEL, C1
 * controls, bidi and other format characters, line separators) are written as \u escapes of four hex digits
 * escapes, which are valid inside JSON strings and parse back to the same value.
 */
export function safeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(UNSAFE, escapeUnits);
}

/** Free text (a message) with every character a terminal may act on written as \u escapes of four hex digits. */
export function escapeText(value: string): string {
  return value.replace(/[\p{C}\p{Zl}\p{Zp}]/gu, escapeUnits);
}

/** A string for a terminal line: as it is when printable, else JSON-quoted with escapes. */
export function displayText(value: string): string {
  return isPrintableName(value) ? value : safeJson(value);
}
