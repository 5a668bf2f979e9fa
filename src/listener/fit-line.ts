/**
 * A live line of `vouchers listen` fitted to the terminal it is printed on: each line is
 * printed as it comes, so it is laid out alone (no table to measure first). Pure; widths
 * in terminal cells.
 *
 * In order, until the line fits: leave out optional pieces, the least important first
 * (then bring back, most important first, any that fits after all); drop the padding that
 * lines pieces up; use the short form of a piece that has one, then its shorter form
 * (which leaves out a part whole, such as a number, never cut); cut free text at its end;
 * and only then an id, in its middle with an ellipsis, keeping the tail that tells ids
 * made in the same moment apart; then use the least form of a piece that has one; then
 * leave out spare pieces (the time, then an id), bringing back any that fits after all;
 * last, use the bare form of a piece that has one. No piece is cut
 * below its `min`: what still does not fit is printed as it is (the terminal wraps it).
 * Without a width (not a terminal) every piece is printed whole. Where only ASCII is shown
 * (`ascii`), the pieces are in ASCII and cut with '...', measured as printed.
 */
import { asciiText } from '../core/io/ascii.js';
import { cellWidth, cutId, truncateCells } from '../core/output/cells.js';

/** One piece of a line. */
export interface LinePiece {
  /** The text, as measured (no escape sequences). */
  text: string;
  /** What joins it to the piece before it; default two spaces. */
  join?: string;
  /** How it is printed (coloured); default as it is. */
  paint?: (text: string) => string;
  /** Cells it is padded to, to line up what follows, while the line has room. */
  pad?: number;
  /** May be left out to fit, the lowest first; undefined: always shown. */
  drop?: number;
  /**
   * Left out only when the line does not fit with everything else cut as far as it goes,
   * the lowest first (then brought back, the highest first, if it fits after all).
   */
  spare?: number;
  /** A shorter form saying the same, used before anything is cut. */
  short?: string;
  /** A still shorter form, leaving out a part whole (a number is never cut), used before any piece is cut. */
  shorter?: string;
  /**
   * The least form, all a narrow line keeps of it, never cut: used only when the line does
   * not fit with every piece cut as far as it goes, before a spare piece is left out.
   */
  least?: string;
  /**
   * What is left of it when the line does not fit even without its spare pieces: its least
   * form with a part left out whole (`→ retry: 503`, `→ gave up`), never cut.
   */
  bare?: string;
  /**
   * How it is cut when nothing else is left to do: `end` free text (an ellipsis at its
   * end), `id` an id (its prefix, an ellipsis, its tail); undefined: never cut.
   */
  cut?: 'end' | 'id';
  /** Cells a cut piece keeps at least. */
  min?: number;
}

const GAP = '  ';

interface Shown {
  piece: LinePiece;
  text: string;
  padded: boolean;
}

/** Padding only counts when something follows it. */
function padding(shown: Shown[], i: number): number {
  const s = shown[i]!;
  return s.padded && i < shown.length - 1 ? Math.max(0, (s.piece.pad ?? 0) - cellWidth(s.text)) : 0;
}

function lineWidth(shown: Shown[]): number {
  let width = 0;
  for (const [i, s] of shown.entries()) {
    if (i > 0) width += cellWidth(s.piece.join ?? GAP);
    width += cellWidth(s.text) + padding(shown, i);
  }
  return width;
}

function render(shown: Shown[]): string {
  let line = '';
  for (const [i, s] of shown.entries()) {
    if (i > 0) line += s.piece.join ?? GAP;
    line += (s.piece.paint ?? ((t: string) => t))(s.text + ' '.repeat(padding(shown, i)));
  }
  return line;
}

/** Cut the pieces of a kind, the last first, until the line fits or each is at its `min`. */
function cut(shown: Shown[], kind: 'end' | 'id', columns: number, ellipsis: string): void {
  for (const s of [...shown].reverse()) {
    if (s.piece.cut !== kind) continue;
    const over = lineWidth(shown) - columns;
    if (over <= 0) return;
    const width = Math.max(s.piece.min ?? 1, cellWidth(s.text) - over);
    if (width < cellWidth(s.text)) s.text = kind === 'id' ? cutId(s.text, width, ellipsis) : truncateCells(s.text, width, ellipsis);
  }
}

/** The pieces as one line at most `columns` cells wide (see the top of this file); whole when `columns` is undefined. */
export function fitLine(pieces: LinePiece[], columns: number | undefined, ascii = false): string {
  const ellipsis = ascii ? '...' : '…';
  const all = pieces.map((p) => {
    const piece = ascii
      ? {
          ...p,
          text: asciiText(p.text),
          short: p.short === undefined ? undefined : asciiText(p.short),
          shorter: p.shorter === undefined ? undefined : asciiText(p.shorter),
          least: p.least === undefined ? undefined : asciiText(p.least),
          bare: p.bare === undefined ? undefined : asciiText(p.bare),
        }
      : p;
    return { piece, text: piece.text, padded: piece.pad !== undefined };
  });
  if (columns === undefined || lineWidth(all) <= columns) return render(all);
  const fits = (shown: Shown[]) => lineWidth(shown) <= columns;
  // Optional pieces, the least important first (the later of two alike first).
  const optional = all
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.piece.drop !== undefined)
    .sort((a, b) => a.s.piece.drop! - b.s.piece.drop! || b.i - a.i);
  let shown = all;
  const dropped: Shown[] = [];
  for (const { s } of optional) {
    shown = shown.filter((x) => x !== s);
    dropped.push(s);
    if (fits(shown)) break;
  }
  if (fits(shown)) return render(bringBack(all, shown, dropped, fits));
  const unpadded = shown.map((s) => ({ ...s, padded: false }));
  if (fits(unpadded)) return render(unpadded);
  const short = unpadded.map((s) => ({ ...s, text: s.piece.short ?? s.text }));
  if (fits(short)) return render(short);
  const shorter = short.map((s) => ({ ...s, text: s.piece.shorter ?? s.text }));
  if (fits(shorter)) return render(shorter);
  // Free text is cut first, so that ids stay whole; once an id must be cut it is cut first,
  // to its least, before the text is: a cut id no longer serves to copy, only to tell apart.
  const endsCut = shorter.map((s) => ({ ...s }));
  cut(endsCut, 'end', columns, ellipsis);
  if (fits(endsCut)) return render(endsCut);
  const cutAll = (from: Shown[]) => {
    const out = from.map((s) => ({ ...s }));
    cut(out, 'id', columns, ellipsis);
    cut(out, 'end', columns, ellipsis);
    return out;
  };
  const idsCut = cutAll(shorter);
  if (fits(idsCut)) return render(idsCut);
  // Then the least form of a piece that has one, which is not cut further.
  const least = shorter.map((s) =>
    s.piece.least === undefined ? s : { ...s, piece: { ...s.piece, cut: undefined }, text: s.piece.least },
  );
  const leastCut = cutAll(least);
  if (fits(leastCut)) return render(leastCut);
  // The last resorts: leave out what only goes when nothing else can (the time, then an
  // id), then a part of a piece that has a bare form.
  const withoutSpares = (from: Shown[]) => {
    const spares = from.filter((s) => s.piece.spare !== undefined).sort((a, b) => a.piece.spare! - b.piece.spare!);
    const cutFits = (shown: Shown[]) => fits(cutAll(shown));
    let kept = from;
    const left: Shown[] = [];
    for (const s of spares) {
      kept = kept.filter((x) => x !== s);
      left.push(s);
      if (cutFits(kept)) break;
    }
    return cutAll(bringBack(from, kept, left, cutFits));
  };
  const spared = withoutSpares(least);
  if (fits(spared)) return render(spared);
  return render(withoutSpares(least.map((s) => (s.piece.bare === undefined ? s : { ...s, text: s.piece.bare }))));
}

/** Bring back pieces left out, the last left out (the most important) first, each that fits after all. */
function bringBack(all: Shown[], shown: Shown[], left: Shown[], fits: (shown: Shown[]) => boolean): Shown[] {
  for (const s of [...left].reverse()) {
    const tried = all.filter((x) => shown.includes(x) || x === s);
    if (fits(tried)) shown = tried;
  }
  return shown;
}
