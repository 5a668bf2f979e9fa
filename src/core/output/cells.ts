/**
 * Text measured and cut in terminal cells, and the box table drawn with those widths.
 * Loaded only when a table is printed (string-width carries the Unicode width tables).
 *
 * Widths come from string-width: a CJK character or an emoji takes 2 cells, a combining
 * mark, a zero-width character or an escape sequence 0. The box is drawn here, with those
 * same widths: a table library measuring with an older string-width counted the combining
 * marks of Thai or Devanagari as a cell each, so its borders went out of line.
 */
import stringWidth from 'string-width';
import { asciiText } from '../io/ascii.js';

/** Terminal cells `text` takes. */
export function cellWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` cut to at most `width` cells, the last one an ellipsis. Cut between graphemes (a
 * letter keeps its accents, an emoji its modifiers); a wide character that would cross the
 * edge is left out whole, so the text may end one cell short (or more, for the spaces
 * before the ellipsis, which are left out). `ellipsis`: '...' where only ASCII is shown.
 */
export function truncateCells(text: string, width: number, ellipsis = '…'): string {
  if (cellWidth(text) <= width) return text;
  if (width < ellipsis.length) return ellipsis.slice(0, Math.max(0, width));
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = cellWidth(segment);
    if (used + w > width - ellipsis.length) break;
    kept += segment;
    used += w;
  }
  // "Games, cinema and…", not "Games, cinema and …": the ellipsis follows the last word.
  return kept.trimEnd() + ellipsis;
}

/**
 * An id cut to `width` cells: its prefix (`evt_`) when it has one, an ellipsis and as much
 * of its end as fits. The end is kept: ids made in the same moment differ only there.
 */
export function cutId(id: string, width: number, ellipsis = '…'): string {
  if (cellWidth(id) <= width) return id;
  const prefix = /^[a-z]{1,8}_/.exec(id)?.[0] ?? '';
  const keepPrefix = cellWidth(prefix) + ellipsis.length + 1 <= width ? prefix : '';
  const room = width - cellWidth(keepPrefix) - ellipsis.length;
  return `${keepPrefix}${ellipsis}${edgeCells(id.slice(keepPrefix.length), room, 'end')}`;
}

/**
 * A reference (a name the partner gave: `spring-promo-2026-batch-0001`) cut to `width` cells
 * in its middle: its start, an ellipsis, its end, as many cells of each (the end the odd
 * one). References of one file differ at their end (`…-0001`, `…-0002`), those of different
 * runs at their start: cut at its end, a column of them reads alike; so both ends show.
 */
export function cutMiddle(text: string, width: number, ellipsis = '…'): string {
  if (cellWidth(text) <= width) return text;
  const room = width - cellWidth(ellipsis);
  if (room < 2) return truncateCells(text, width, ellipsis);
  const tail = edgeCells(text, Math.ceil(room / 2), 'end');
  const head = edgeCells(text, room - cellWidth(tail), 'start');
  return `${head}${ellipsis}${tail}`;
}

/** As many whole graphemes of `text` as fit in `room` cells, from its start or its end. */
function edgeCells(text: string, room: number, from: 'start' | 'end'): string {
  const parts = [...graphemes.segment(text)].map((s) => s.segment);
  if (from === 'end') parts.reverse();
  const kept: string[] = [];
  let used = 0;
  for (const part of parts) {
    const w = cellWidth(part);
    if (used + w > room) break;
    kept.push(part);
    used += w;
  }
  if (from === 'end') kept.reverse();
  return kept.join('');
}

/**
 * A list of values (`10,25,50,100`, `DE; FR`) cut to at most `width` cells after its last
 * whole value that fits, then an ellipsis (`10,25,…`): a value is never cut in the middle (an
 * amount cut to `10…` would read as another one). Just the ellipsis when not even the first fits.
 */
export function truncateList(text: string, width: number, ellipsis = '…'): string {
  if (cellWidth(text) <= width) return text;
  for (let at = text.length - 1; at > 0; at--) {
    if (text[at] !== ',' && text[at] !== ';') continue;
    const kept = text.slice(0, at + 1) + ellipsis;
    if (cellWidth(kept) <= width) return kept;
  }
  return ellipsis.slice(0, Math.max(0, width));
}

export interface BoxCell {
  /** The text as measured (no escape sequences). */
  text: string;
  /** What is printed in its place (the text, coloured); default the text. */
  shown?: string;
}

/**
 * A box table: a rule, the header, a rule, one line a row, a rule. Every line is exactly
 * `widths` plus 3 cells a column plus 1 wide: each cell's text must already fit its width.
 * `ascii`: drawn with + - | where only ASCII is shown.
 */
export function drawBox(head: BoxCell[], rows: BoxCell[][], widths: number[], align: ('left' | 'right')[], ascii = false): string {
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  const line = (cells: BoxCell[]) =>
    '│' +
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, widths[i]! - cellWidth(cell.text)));
        const shown = cell.shown ?? cell.text;
        return ' ' + (align[i] === 'right' ? pad + shown : shown + pad) + ' ';
      })
      .join('│') +
    '│';
  const box = [rule('┌', '┬', '┐'), line(head), rule('├', '┼', '┤'), ...rows.map(line), rule('└', '┴', '┘')].join('\n');
  return ascii ? asciiText(box) : box;
}

/**
 * A continuation line `indent` cells in; one too wide for the room there (a word wrapCells
 * left whole) further left, as far as it needs to fit in `width`, up to the left edge.
 */
export function indentWithin(line: string, indent: number, width: number): string {
  return ' '.repeat(Math.max(0, Math.min(indent, width - cellWidth(line)))) + line;
}

/**
 * `text` broken into lines of at most `width` cells (`rest` cells after the first line, for
 * a hanging indent): at spaces where it can, a word longer than a line after a comma or
 * semicolon (a list without spaces: never inside one of its values), else (a URL, an id)
 * between graphemes. Newlines in `text` are kept. Widths below 1 are
 * taken as 1.
 *
 * `whole` (a note, which a terminal may fold but nobody reads as a column): a word wider
 * than a line (a path, a URL) is never cut but left whole on a line of its own, so that the
 * terminal folds it and a copy still gives the whole word.
 */
export function wrapCells(text: string, width: number, rest = width, whole = false): string[] {
  const lines: string[] = [];
  const max = () => Math.max(1, lines.length === 0 ? width : rest);
  for (const paragraph of text.split('\n')) {
    let line = '';
    let used = 0;
    const flush = () => {
      lines.push(line.trimEnd());
      line = '';
      used = 0;
    };
    for (const word of paragraph.split(/(?<= )/)) {
      const bare = cellWidth(word.trimEnd());
      if (used + bare <= max()) {
        line += word;
        used += cellWidth(word);
        continue;
      }
      if (used > 0) flush();
      if (bare <= max() || whole) {
        line = word;
        used = cellWidth(word);
        continue;
      }
      // A word wider than a line: a list (`5,10,15,…`) broken after a comma or semicolon, so
      // that no value is split across lines (`1` and `05` would read as other amounts); a
      // piece still wider than a line, as many graphemes a line as fit.
      for (const piece of word.split(/(?<=[,;])(?=.)/)) {
        const p = cellWidth(piece.trimEnd());
        if (used > 0 && used + p > max()) flush();
        if (used + p <= max()) {
          line += piece;
          used += cellWidth(piece);
          continue;
        }
        for (const { segment } of graphemes.segment(piece)) {
          const g = cellWidth(segment);
          if (used + g > max() && used > 0) {
            flush();
            if (segment === ' ') continue;
          }
          line += segment;
          used += g;
        }
      }
    }
    flush();
  }
  return lines;
}
