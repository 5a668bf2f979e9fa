/**
 * The table layout engine, pure: which columns a terminal of a given width shows and how
 * wide each is, in display cells. table.ts draws the tables it lays out; certify's pretty
 * reporter lays out its own with it.
 */

/** Narrowest a free-text column is cut to (display cells) when a table must fit the terminal. */
export const MIN_COLUMN_WIDTH = 6;

/** Cells free text with a readable width keeps before an id is cut in its middle (`order.partially_del…` still reads). */
const TEXT_BEFORE_ID = 20;

/** Cells a table needs for `widths` (content only): borders and padding take 3 a column + 1. */
export function tableWidth(widths: number[]): number {
  return widths.reduce((a, w) => a + w, 0) + 3 * widths.length + 1;
}

/**
 * Column widths (content only, without padding) that fit `columns` terminal characters:
 * the widest shortenable column loses a character at a time until the table fits or
 * every shortenable column is at MIN_COLUMN_WIDTH (or its `floors[i]`, when higher).
 * `fixed[i]` marks a column never shortened.
 */
export function fitColumnWidths(natural: number[], fixed: boolean[], columns: number, floors: number[] = []): number[] {
  const widths = [...natural];
  while (tableWidth(widths) > columns) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (fixed[i] || widths[i]! <= Math.max(MIN_COLUMN_WIDTH, floors[i] ?? 0)) continue;
      if (widest < 0 || widths[i]! > widths[widest]!) widest = i;
    }
    if (widest < 0) break;
    widths[widest]! -= 1;
  }
  return widths;
}

/** What the layout of a table needs to know of a column. */
export interface ColumnFit {
  /** Widest content (or header), in display cells. */
  natural: number;
  /** Free text that may be shortened. */
  shrink: boolean;
  /** May be left out, the lowest first; undefined: always shown. */
  priority?: number;
  /** Free text not shortened below this many cells while a less important optional column can go instead. */
  readable?: number;
  /** Its readable width is kept only against optional columns of a lower priority than this; undefined: against all. */
  readableOver?: number;
  /** An id that may be cut (in its middle) to this many cells, once no optional column is shown, before free text goes below its readable width. */
  idMin?: number;
  /** Every cell is empty: once left out, not brought back in the room a column with content could not use. */
  empty?: boolean;
}

export interface TableLayout {
  /** Indexes of the columns shown, in their order. */
  shown: number[];
  /** Widths of the shown columns, in the same order. */
  widths: number[];
  /** Indexes of the columns left out, in their order. */
  dropped: number[];
  /** False when even the last resort is wider than the terminal (the terminal wraps its lines). */
  fits: boolean;
}

/**
 * Lay a table out for a terminal `columns` wide. In order: shorten free text (never below
 * MIN_COLUMN_WIDTH, nor below a column's `readable` width while an optional column of lower
 * priority than it is shown, a column without a priority ranking above all); if that is not enough, leave out optional columns one at a time, those
 * empty in every row first, then the lowest priority first, then bring back, most important first, any that fits after all;
 * with no optional column left, cut an id that may be cut (`idMin`) in its middle once free
 * text is down to its readable width or TEXT_BEFORE_ID cells, and before it goes further; if nothing more can go, the table does not fit
 * (`fits` false: printList then shows one record a row), and no amount, status, time or
 * other id is ever cut.
 */
export function layoutTable(cols: ColumnFit[], columns: number): TableLayout {
  const rank = (i: number) => cols[i]!.priority ?? Infinity;
  const readableRank = (i: number) => Math.min(rank(i), cols[i]!.readableOver ?? Infinity);
  const attempt = (shown: number[]) => {
    // Free text is not cut below its readable width to keep a less important optional column;
    // an optional column is left out rather than cut below its own.
    const floors = shown.map((i) =>
      cols[i]!.priority !== undefined || shown.some((j) => cols[j]!.priority !== undefined && rank(j) < readableRank(i))
        ? Math.min(cols[i]!.natural, cols[i]!.readable ?? 0)
        : 0,
    );
    const natural = shown.map((i) => cols[i]!.natural);
    const fixed = shown.map((i) => !cols[i]!.shrink);
    // With no optional column left to leave out: free text is cut to its readable width, and
    // not below TEXT_BEFORE_ID cells; then an id that may be cut, in its middle, to its
    // idMin; then the text as far as it goes beside the cut id.
    if (!shown.some((i) => cols[i]!.priority !== undefined) && shown.some((i) => cols[i]!.idMin !== undefined)) {
      const isId = shown.map((i) => cols[i]!.idMin !== undefined);
      const text = fitColumnWidths(
        natural,
        fixed.map((f, n) => f || isId[n]!),
        columns,
        shown.map((i, n) => Math.max(floors[n]!, Math.min(cols[i]!.natural, cols[i]!.readable ?? 0, TEXT_BEFORE_ID))),
      );
      if (tableWidth(text) <= columns) return { shown, widths: text, fits: true };
      const ids = fitColumnWidths(
        text,
        isId.map((id) => !id),
        columns,
        shown.map((i) => cols[i]!.idMin ?? 0),
      );
      const widths = fitColumnWidths(
        ids,
        fixed.map((f, n) => f || isId[n]!),
        columns,
        floors,
      );
      return { shown, widths, fits: tableWidth(widths) <= columns };
    }
    const widths = fitColumnWidths(natural, fixed, columns, floors);
    return { shown, widths, fits: tableWidth(widths) <= columns };
  };
  let shown = cols.map((_, i) => i);
  let best = attempt(shown);
  if (best.fits) return { ...best, dropped: [] };
  // An optional column empty in every row shows nothing: it goes before any with content, and
  // once one must go, all of them.
  const candidates = shown
    .filter((i) => cols[i]!.priority !== undefined)
    .sort((a, b) => Number(cols[b]!.empty === true) - Number(cols[a]!.empty === true) || cols[a]!.priority! - cols[b]!.priority! || b - a);
  const dropped: number[] = [];
  for (const i of candidates) {
    shown = shown.filter((x) => x !== i);
    dropped.push(i);
    // Every empty one goes together: none is kept (a cut header over nothing) once one had to go.
    if (cols[i]!.empty && candidates.some((j) => cols[j]!.empty && !dropped.includes(j))) continue;
    best = attempt(shown);
    if (best.fits) break;
  }
  if (best.fits) {
    for (const i of [...dropped].reverse()) {
      if (cols[i]!.empty) continue;
      const tried = attempt([...shown, i].sort((a, b) => a - b));
      if (tried.fits) {
        best = tried;
        shown = tried.shown;
        dropped.splice(dropped.indexOf(i), 1);
      }
    }
  }
  return { ...best, dropped: dropped.sort((a, b) => a - b) };
}
