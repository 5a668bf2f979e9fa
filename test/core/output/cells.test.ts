/** Text measured and cut in terminal cells, and the box drawn with those widths. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cellWidth, drawBox, truncateCells, truncateList } from '../../../src/core/output/cells.js';

describe('cellWidth', () => {
  it('counts CJK and emoji as 2 cells, combining marks and escape sequences as 0', () => {
    expect(cellWidth('さくら')).toBe(6);
    expect(cellWidth('🎁')).toBe(2);
    expect(cellWidth('🇺🇸')).toBe(2);
    expect(cellWidth('e\u0301')).toBe(1);
    expect(cellWidth('ก่')).toBe(1);
    expect(cellWidth('\u001b[31mred\u001b[39m')).toBe(3);
  });
});

describe('truncateList', () => {
  it('cuts a list after its last whole value that fits, never inside a value', () => {
    expect(truncateList('10,25,50', 8)).toBe('10,25,50');
    expect(truncateList('5,10,15,20,25,30', 12)).toBe('5,10,15,20,…');
    expect(truncateList('1000,3000,5000,10000', 10)).toBe('1000,…');
    expect(truncateList('1000,3000', 4)).toBe('…');
    expect(truncateList('DE; FR; GB', 8)).toBe('DE; FR;…');
  });
});

describe('truncateCells', () => {
  it('leaves text that fits as it is', () => {
    expect(truncateCells('さくら', 6)).toBe('さくら');
  });

  it('cuts to at most the width, an ellipsis last, never through a wide character or a grapheme', () => {
    expect(truncateCells('さくら書店', 6)).toBe('さく…');
    expect(truncateCells('さくら書店', 7)).toBe('さくら…');
    expect(truncateCells('ab🎁cd', 4)).toBe('ab…');
    expect(truncateCells('Cine\u0301mas', 5)).toBe('Cine\u0301…');
    expect(truncateCells('🇺🇸🇺🇸', 3)).toBe('🇺🇸…');
    // The ellipsis follows the last word kept, not the space after it.
    expect(truncateCells('Games, cinema and streaming', 19)).toBe('Games, cinema and…');
    expect(truncateCells('trigger order.created', 9)).toBe('trigger…');
    for (const [text, width] of [
      ['さくら書店 全国共通', 9],
      ['🎁🎁🎁', 4],
      ['ab', 1],
    ] as const) {
      expect(stringWidth(truncateCells(text, width))).toBeLessThanOrEqual(width);
    }
  });
});

describe('drawBox', () => {
  it('draws every line exactly as wide as the widths say, whatever the cells hold', () => {
    const box = drawBox(
      [{ text: 'NAME' }, { text: 'TOTAL' }],
      [
        [{ text: 'さくら' }, { text: '1000 JPY' }],
        [{ text: 'ก่ 🎁', shown: '\u001b[1mก่ 🎁\u001b[22m' }, { text: '5.00 USD' }],
      ],
      [6, 8],
      ['left', 'right'],
    );
    const lines = box.split('\n');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(stringWidth(line), line).toBe(6 + 8 + 3 * 2 + 1);
    expect(lines[1]).toBe('│ NAME   │    TOTAL │');
    expect(lines[3]).toBe('│ さくら │ 1000 JPY │');
  });
});
