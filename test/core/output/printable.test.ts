/**
 * Terminal-safe text: the printable-ASCII fast paths agree with the Unicode-property
 * patterns on every string, and what those patterns catch is escaped.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  displayText,
  escapeText,
  isPrintableName,
  MAX_NAME_LENGTH,
  PLAIN_CHARACTERS,
  safeJson,
} from '../../../src/core/output/printable.js';

const units = (ch: string): string =>
  Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
// A ZWJ joining two emoji is left as it is: the plain patterns run on the text around it.
const JOINED = /(?<=\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?)\u200D(?=\p{Extended_Pictographic})/u;
const around = (v: string, f: (part: string) => string) => v.split(new RegExp(JOINED, 'gu')).map(f).join('\u200d');
const reference = {
  isPrintableName: (v: string) =>
    new RegExp(`^(?=[^]*\\S)[^\\p{C}\\p{Zl}\\p{Zp}]{1,${MAX_NAME_LENGTH}}$`, 'u').test(v.replace(new RegExp(JOINED, 'gu'), 'a')),
  escapeText: (v: string) => around(v, (p) => p.replace(/[\p{C}\p{Zl}\p{Zp}]/gu, units)),
  safeJson: (v: unknown) => around(JSON.stringify(v) ?? 'null', (p) => p.replace(/[^\P{C}\n]|[\p{Zl}\p{Zp}]/gu, units)),
};

// Mostly ASCII (the fast paths), with controls, DEL, C1, bidi, separators and astral characters.
const tricky = fc.constantFrom(
  '\u0000',
  '\t',
  '\n',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u202e',
  '\u200b',
  '\u2028',
  '\u2029',
  '\ue000',
  '😀',
  '👩',
  '\u200d',
  '\ufe0f',
  'é',
  ' ',
);
const text = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: 0, maxLength: 3 }) }, tricky), { maxLength: 80 })
  .map((p) => p.join(''));

describe('printable text', () => {
  it('agrees with the Unicode-property patterns on every string, ASCII or not', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ maxLength: 250 }), fc.string({ unit: 'binary', maxLength: 40 })), (v) => {
        expect(isPrintableName(v)).toBe(reference.isPrintableName(v));
        expect(escapeText(v)).toBe(reference.escapeText(v));
        expect(safeJson({ v })).toBe(reference.safeJson({ v }));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path only for characters the Unicode-property patterns leave alone', () => {
    const plain = new RegExp(`^[${PLAIN_CHARACTERS}]$`);
    let count = 0;
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      if (!plain.test(ch)) continue;
      count++;
      expect(/[\p{C}\p{Zl}\p{Zp}]/u.test(ch), `U+${code.toString(16)}`).toBe(false);
    }
    expect(count).toBeGreaterThan(300);
  });

  it('escapes what a terminal acts on, and leaves printable ASCII as it is', () => {
    expect(escapeText('Blue Harbor Games')).toBe('Blue Harbor Games');
    expect(escapeText('red\u001b[31m\tx\n')).toBe('red\\u001b[31m\\u0009x\\u000a');
    expect(safeJson({ a: 'x\u2028y' }, 2)).toBe('{\n  "a": "x\\u2028y"\n}');
    expect(isPrintableName('order.created')).toBe(true);
    expect(isPrintableName('   ')).toBe(false);
    expect(isPrintableName('x'.repeat(MAX_NAME_LENGTH + 1))).toBe(false);
    expect(displayText('evt\u202e1')).toBe('"evt\\u202e1"');
  });

  it('leaves a zero-width joiner inside an emoji sequence as it is, and escapes it anywhere else', () => {
    for (const emoji of ['👩\u200d💻', '❤\ufe0f\u200d🔥', '👍🏽\u200d👍']) {
      expect(escapeText(`team ${emoji} batch`)).toBe(`team ${emoji} batch`);
      expect(displayText(emoji)).toBe(emoji);
      expect(safeJson({ r: emoji })).toBe(`{"r":"${emoji}"}`);
    }
    expect(escapeText('a\u200db')).toBe('a\\u200db');
    expect(escapeText('👩\u200d')).toBe('👩\\u200d');
    expect(escapeText('\u200d💻')).toBe('\\u200d💻');
    expect(displayText('evt_1\u200d')).toBe('"evt_1\\u200d"');
  });
});
