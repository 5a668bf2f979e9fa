/**
 * Property of shellQuote (src/core/output/next-page.ts), the quoting of every command a
 * hint suggests: a POSIX shell reads any quoted word back as the same string. Each case
 * runs `sh`, so the number of runs is kept small.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/core/output/shell-quote.js';

/** What a shell treats specially, plus any Unicode text; never NUL (no argv can hold it). */
const word = fc
  .oneof(
    fc.string({
      unit: fc.constantFrom(
        "'",
        '"',
        '\\',
        '$',
        '`',
        ' ',
        '\t',
        '\n',
        '!',
        '*',
        '?',
        '~',
        '#',
        '-',
        '%',
        '=',
        '{',
        '}',
        ';',
        '&',
        '|',
        '(',
        ')',
        '<',
        '>',
        'a',
        '1',
      ),
      maxLength: 12,
    }),
    fc.string({ unit: 'binary', maxLength: 12 }),
  )
  .filter((s) => !s.includes('\0'));

describe('shell quoting (property)', () => {
  it('sh -c "printf %s <quoted>" prints the word back', () => {
    fc.assert(
      fc.property(word, (w) => {
        expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(w)}`], { encoding: 'utf8' })).toBe(w);
      }),
      { numRuns: 100 },
    );
  });
});
