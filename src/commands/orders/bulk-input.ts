/**
 * The bulk input file: CSV with a header, or NDJSON, with the columns product_id,
 * denomination, quantity (default 1), reference, currency. Every row is checked against
 * the contract; every bad row is reported by its line number.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CreateOrderRequest } from '../../contract/orders.js';
import type { BulkRow } from '../../core/journal/bulk.js';
import { certainlyOrderRequest, exactDenomination, parseCount, withoutRepeatedTotal } from './order-input.js';
import { UsageError } from '../../core/errors/index.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import { nearestKnown } from '../../core/run/known-word.js';
import { CsvReader } from './csv-reader.js';

export const BULK_COLUMNS = ['product_id', 'denomination', 'quantity', 'reference', 'currency'] as const;
type BulkColumn = (typeof BULK_COLUMNS)[number];

export interface RowProblem {
  /** Line number in the file (1-based). */
  line: number;
  message: string;
  /** A problem of a CSV file's header, not of a row. */
  header?: true;
}

export interface ParsedBulkFile {
  format: 'csv' | 'ndjson';
  /** A CSV file's separator. */
  separator?: string;
  rows: BulkRow[];
  problems: RowProblem[];
}

/** A raw record: the cells by column name, with the line it starts on. */
interface RawRecord {
  line: number;
  cells: Partial<Record<string, unknown>>;
}

/** The separators a CSV header is read with when the file does not name one (a first line sep=X). */
const SEPARATORS = [',', ';', '\t'] as const;

/** What a first line `sep=X` may name (as a spreadsheet writes and reads it). */
const NAMED_SEPARATORS = [',', ';', '\t', '|'];

/** A separator in words: "semicolons", "tabs". */
export function separatorWords(separator: string): string {
  return separator === ',' ? 'commas' : separator === ';' ? 'semicolons' : separator === '\t' ? 'tabs' : `${JSON.stringify(separator)}`;
}

/** How a CSV text is laid out: its separator, and where its header starts (after a first line sep=X). */
interface CsvLayout {
  separator: string;
  /** Characters before the header that are no record (a sep=X line). */
  skip: number;
  /** The line number the text after `skip` starts on. */
  firstLine: number;
}

/**
 * The layout of a CSV text from its start: a first line sep=X names the separator, else the
 * header (its first line that is not blank) is read with each of , ; and tab, and the one
 * that finds the most known column names wins (a comma when none finds more). Undefined while
 * the header line is not whole yet and more text may come.
 */
function csvLayout(text: string, final: boolean): CsvLayout | undefined {
  const named = /^sep=(.)(\r?\n|$)/i.exec(text);
  if (named && NAMED_SEPARATORS.includes(named[1] as string)) {
    if (named[2] === '' && !final) return undefined;
    return { separator: named[1] as string, skip: named[0].length, firstLine: 2 };
  }
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl === -1 ? text.length : nl);
    if (nl === -1 && !final) return undefined;
    if (line.trim() !== '' || nl === -1) return { separator: headerSeparator(line), skip: 0, firstLine: 1 };
    at = nl + 1;
  }
}

/** The separator that reads the most known column names from a header line (a comma on a tie). */
function headerSeparator(line: string): string {
  let best: string = ',';
  let bestKnown = -1;
  let bestCells = 0;
  for (const separator of SEPARATORS) {
    const cells = parseWith(separator, line);
    const known = cells.filter((c) => (BULK_COLUMNS as readonly string[]).includes(c.trim().toLowerCase())).length;
    if (known > bestKnown || (known === bestKnown && known === 0 && cells.length > bestCells)) {
      best = separator;
      bestKnown = known;
      bestCells = cells.length;
    }
  }
  return best;
}

/** The cells of one line read with a separator. */
function parseWith(separator: string, line: string): string[] {
  const reader = new CsvReader(separator);
  return reader.end(reader.push(line))[0]?.cells ?? [];
}

/** The columns every row needs: a header without one is refused once, its rows left unchecked. */
const REQUIRED_COLUMNS = ['product_id', 'denomination'] as const;

/** The CSV header's column names, with the problems of the header line. */
function csvHeader(header: { line: number; cells: string[] }, problems: RowProblem[]): string[] {
  const names = header.cells.map((c) => c.trim().toLowerCase());
  if (names.length === 1 && !(BULK_COLUMNS as readonly string[]).includes(names[0] as string)) {
    const cell = header.cells[0] as string;
    problems.push({
      header: true,
      line: header.line,
      message: `the header ${JSON.stringify(cell.length > 60 ? `${cell.slice(0, 60)}…` : cell)} is not column names separated by commas, semicolons or tabs: expected ${BULK_COLUMNS.join(', ')} (product_id and denomination required, in any order), e.g. ${BULK_COLUMNS.join(',')}; the rows were not checked`,
    });
    return names;
  }
  // The unknown names and the required columns missing are one line, the columns listed once.
  const said: string[] = [];
  const unknown = names.filter((n) => !(BULK_COLUMNS as readonly string[]).includes(n));
  if (unknown.length > 0)
    said.push(
      `unknown column${unknown.length > 1 ? 's' : ''} ${unknown
        .map((u) => {
          const near = columnMeant(u, names);
          return `${JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u)}${near ? ` (did you mean ${near}?)` : ''}`;
        })
        .join(', ')}`,
    );
  const missing = REQUIRED_COLUMNS.filter((required) => !names.includes(required));
  if (missing.length > 0) said.push(`no ${missing.join(' or ')} column`);
  if (said.length > 0)
    problems.push({
      header: true,
      line: header.line,
      message: `${said.join('; ')} (columns: ${BULK_COLUMNS.join(', ')}; product_id and denomination required)`,
    });
  const dup = names.filter((n, i) => names.indexOf(n) !== i);
  if (dup.length > 0) problems.push({ header: true, line: header.line, message: `column ${JSON.stringify(dup[0])} appears twice` });
  return names;
}

/**
 * The column an unknown header name likely means, when the header lacks it: one spelled
 * nearly so (product id, prodcut_id), or one it begins (denom, ref, curr, at least 3 letters).
 */
function columnMeant(name: string, names: string[]): string | undefined {
  const absent = BULK_COLUMNS.filter((c) => !names.includes(c));
  const near = nearestKnown(name, absent);
  if (near !== undefined) return near;
  const f = name.replace(/[-_ .]/g, '');
  const begun = f.length >= 3 ? absent.filter((c) => c.replace(/_/g, '').startsWith(f)) : [];
  return begun.length === 1 ? begun[0] : undefined;
}

function csvRecord(r: { line: number; cells: string[] }, names: string[], problems: RowProblem[]): RawRecord | undefined {
  if (r.cells[r.cells.length - 1] === '\u0000unterminated') {
    problems.push({ line: r.line, message: 'a quoted cell is never closed' });
    return undefined;
  }
  if (r.cells.length !== names.length) {
    problems.push({ line: r.line, message: `${r.cells.length} cells, the header has ${names.length}` });
    return undefined;
  }
  const cells: Record<string, string> = {};
  names.forEach((n, i) => {
    cells[n] = (r.cells[i] as string).trim();
  });
  return { line: r.line, cells };
}

function ndjsonRecord(raw: string, line: number, problems: RowProblem[]): RawRecord | undefined {
  const lineText = raw.replace(/\r$/, '');
  if (lineText.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(lineText);
  } catch {
    problems.push({ line, message: 'not a JSON object' });
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ line, message: 'not a JSON object' });
    return undefined;
  }
  const keys = Object.keys(value);
  const unknown = keys.filter((k) => !(BULK_COLUMNS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    problems.push({
      line,
      message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')} (fields: ${BULK_COLUMNS.join(', ')})`,
    });
    return undefined;
  }
  return { line, cells: value as Record<string, unknown> };
}

/** A cell as text (CSV) or JSON value (NDJSON); empty means absent. */
function cellText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = typeof v === 'string' ? v.trim() : String(v);
  return s === '' ? undefined : s;
}

function toRow(rec: RawRecord): { row?: BulkRow; errors: string[] } {
  const errors: string[] = [];
  const get = (c: BulkColumn) => cellText(rec.cells[c]);
  const product = get('product_id');
  const denomText = get('denomination');
  const qtyText = get('quantity');
  const raw = rec.cells;
  if (raw.product_id !== undefined && typeof raw.product_id !== 'string' && typeof raw.product_id !== 'number')
    errors.push('product_id: must be text');
  if (product === undefined) errors.push('product_id: is required');
  let denomination: number | undefined;
  if (denomText === undefined) errors.push('denomination: is required');
  else {
    // The same exact reading as --denomination: from the digits, never rounded.
    try {
      denomination = exactDenomination(denomText, get('currency'), (why) => new Error(why));
    } catch (e) {
      // A decimal comma (10,50) is said how to write: exactDenomination's reason says it.
      errors.push(`denomination: ${JSON.stringify(denomText)} ${(e as Error).message}`);
    }
  }
  let quantity = 1;
  if (qtyText !== undefined) {
    const q = typeof raw.quantity === 'number' ? raw.quantity : parseCount(qtyText);
    if (q === undefined) errors.push(`quantity: ${JSON.stringify(qtyText)} must be a whole number of vouchers, 1 or more`);
    else quantity = q;
  }
  if (errors.length > 0 || product === undefined || denomination === undefined) return { errors };
  const reference = get('reference');
  const currency = get('currency');
  const body = {
    items: [{ product_id: product, denomination, quantity }],
    ...(currency !== undefined ? { currency } : {}),
    ...(reference !== undefined ? { reference } : {}),
  };
  // Most rows conform: recognised without zod, which reads (and names the problem of) the others.
  const parsed = certainlyOrderRequest(body) ? undefined : CreateOrderRequest.safeParse(body);
  if (parsed && !parsed.success) {
    for (const issue of withoutRepeatedTotal(parsed.error.issues, body)) {
      const field = issue.path[0] === 'items' ? String(issue.path[2] ?? 'quantity') : String(issue.path[0] ?? 'row');
      errors.push(`${field}: ${issue.message}`);
    }
    return { errors };
  }
  return {
    errors,
    row: {
      row: rec.line,
      product_id: product,
      denomination,
      quantity,
      ...(reference !== undefined ? { reference } : {}),
      ...(currency !== undefined ? { currency } : {}),
    },
  };
}

/**
 * CSV unless the name says NDJSON (.ndjson, .jsonl) or the first character is `{`. A JSON
 * array (a first `[`) is neither: refused with the command that makes NDJSON of it (a file
 * is read in pieces, never held whole, so an array is not read as one).
 */
export function detectFormat(name: string, text: string): 'csv' | 'ndjson' {
  if (/\.(ndjson|jsonl)$/i.test(name)) return 'ndjson';
  if (/\.csv$/i.test(name)) return 'csv';
  const start = text.trimStart();
  if (start.startsWith('['))
    throw new UsageError(
      `${name} holds a JSON array; a bulk file is CSV, or NDJSON (one JSON object per line): nothing was ordered`,
      `make NDJSON of it, e.g. jq -c '.[]' ${shellQuote(name)} > orders.ndjson, then --from orders.ndjson`,
    );
  return start.startsWith('{') ? 'ndjson' : 'csv';
}

/** One row of the file, or what is wrong with a line of it. */
export type ScannedItem = { row: BulkRow; problem?: undefined } | { row?: undefined; problem: RowProblem };

/**
 * Reads a bulk file in pieces and checks each row as it completes: rows and problems come
 * out in line order (the header's problems first), holding no more than one record.
 */
export class RowScanner {
  private csv: CsvReader | undefined;
  private names: string[] | undefined;
  /**
   * The header names no known column, or lacks a required one: its rows cannot be read, or
   * would each say again what the header's line says, and are not checked.
   */
  private headerUnread = false;
  private ndjsonCarry = '';
  private ndjsonLine = 0;
  private started = false;
  /** The start of a CSV text held until its header line is whole (its separator is read from it). */
  private csvHead = '';
  format: 'csv' | 'ndjson' | undefined;
  /** The separator of a CSV file, once its header line was read. */
  separator: string | undefined;

  constructor(private readonly name: string) {}

  /** Scan the next piece of text; the items completed by it go to `out`. */
  push(piece: string, out: ScannedItem[]): void {
    if (!this.started) {
      piece = piece.replace(/^\uFEFF/, '');
      // The format is decided on the first text that says something (a name, or a first `{`).
      if (this.format === undefined && piece.trimStart() === '' && !/\.(ndjson|jsonl|csv)$/i.test(this.name)) {
        this.pending += piece;
        return;
      }
      this.started = true;
      piece = this.pending + piece;
      this.pending = '';
      this.format = detectFormat(this.name, piece);
    }
    if (this.format === 'csv') this.csvPush(piece, false, out);
    else this.ndjsonItems(piece, false, out);
  }

  end(out: ScannedItem[]): void {
    if (!this.started) {
      this.started = true;
      this.format = detectFormat(this.name, this.pending);
      const rest = this.pending;
      this.pending = '';
      if (this.format === 'csv') this.csvPush(rest, false, out);
      else this.ndjsonItems(rest, false, out);
    }
    if (this.format === 'csv') {
      this.csvPush('', true, out);
      this.csvItems((this.csv as CsvReader).end(), out);
    } else this.ndjsonItems('', true, out);
  }

  private pending = '';

  /** CSV text: held until the header line is whole, then read with the separator it shows. */
  private csvPush(piece: string, final: boolean, out: ScannedItem[]): void {
    if (this.csv) {
      this.csvItems(this.csv.push(piece), out);
      return;
    }
    const text = this.csvHead + piece;
    const layout = csvLayout(text, final);
    if (!layout) {
      this.csvHead = text;
      return;
    }
    this.csvHead = '';
    this.separator = layout.separator;
    this.csv = new CsvReader(layout.separator, layout.firstLine);
    this.csvItems(this.csv.push(text.slice(layout.skip)), out);
  }

  private csvItems(records: { line: number; cells: string[] }[], out: ScannedItem[]): void {
    for (const r of records) {
      const problems: RowProblem[] = [];
      if (this.names === undefined) {
        this.names = csvHeader(r, problems);
        const names = this.names;
        this.headerUnread =
          !names.some((n) => (BULK_COLUMNS as readonly string[]).includes(n)) || REQUIRED_COLUMNS.some((c) => !names.includes(c));
        for (const problem of problems) out.push({ problem });
        continue;
      }
      if (this.headerUnread) continue;
      const rec = csvRecord(r, this.names, problems);
      for (const problem of problems) out.push({ problem });
      if (rec) checked(rec, out);
    }
  }

  private ndjsonItems(piece: string, last: boolean, out: ScannedItem[]): void {
    const text = this.ndjsonCarry + piece;
    const lines = text.split('\n');
    this.ndjsonCarry = last ? '' : (lines.pop() as string);
    for (const raw of lines) {
      this.ndjsonLine += 1;
      const problems: RowProblem[] = [];
      const rec = ndjsonRecord(raw, this.ndjsonLine, problems);
      for (const problem of problems) out.push({ problem });
      if (rec) checked(rec, out);
    }
  }
}

/** What the read puts for bytes that are not UTF-8 (a file saved as Latin-1 or Windows-1252). */
const NOT_UTF8 = '\uFFFD';

function checked(rec: RawRecord, out: ScannedItem[]): void {
  // Sent so, a reference would reach the server with its letters replaced, for good.
  const mangled = Object.entries(rec.cells).flatMap(([field, v]) => (typeof v === 'string' && v.includes(NOT_UTF8) ? [field] : []));
  if (mangled.length > 0) {
    out.push({
      problem: {
        line: rec.line,
        message: `${mangled.join(', ')}: holds bytes that are not UTF-8 (shown as ${NOT_UTF8}): the file was saved in another encoding (Latin-1, Windows-1252); save the file as UTF-8 (in a spreadsheet: CSV UTF-8)`,
      },
    });
    return;
  }
  const { row, errors } = toRow(rec);
  if (errors.length > 0) out.push({ problem: { line: rec.line, message: errors.join('; ') } });
  else if (row) out.push({ row });
}

/** Parse and check every row of a whole text; rows and problems both come back, in line order. */
export function parseBulkFile(name: string, content: string): ParsedBulkFile {
  const scanner = new RowScanner(name);
  const items: ScannedItem[] = [];
  scanner.push(content, items);
  scanner.end(items);
  const rows: BulkRow[] = [];
  const problems: RowProblem[] = [];
  for (const item of items) {
    if (item.row) rows.push(item.row);
    else problems.push(item.problem);
  }
  problems.sort((a, b) => a.line - b.line);
  return { format: scanner.format ?? 'csv', ...(scanner.separator !== undefined ? { separator: scanner.separator } : {}), rows, problems };
}

/** What a whole read of a file found: its SHA-256 and size, once the read ran to the end. */
export interface FileDigest {
  sha256?: string;
  bytes?: number;
  format?: 'csv' | 'ndjson';
  /** A CSV file's separator (a comma, a semicolon, a tab). */
  separator?: string;
}

/**
 * The rows of a bulk file, read from disk in pieces as they are consumed (memory does not
 * grow with the file): the items of each piece read (64 KiB) together, so a consumer
 * awaits once per piece rather than once per row. `digest` receives the file's SHA-256
 * once the read reaches the end.
 */
export async function* scanFilePieces(path: string, name: string, digest: FileDigest = {}): AsyncGenerator<ScannedItem[]> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  const scanner = new RowScanner(name);
  let bytes = 0;
  let out: ScannedItem[] = [];
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
    const buf = chunk as Buffer;
    hash.update(buf);
    bytes += buf.length;
    scanner.push(decoder.write(buf), out);
    if (out.length > 0) {
      yield out;
      out = [];
    }
  }
  scanner.push(decoder.end(), out);
  scanner.end(out);
  if (out.length > 0) yield out;
  digest.sha256 = hash.digest('hex');
  digest.bytes = bytes;
  digest.format = scanner.format;
  if (scanner.separator !== undefined) digest.separator = scanner.separator;
}

/** The rows of a bulk file one at a time (scanFilePieces). */
export async function* scanFile(path: string, name: string, digest: FileDigest = {}): AsyncGenerator<ScannedItem> {
  for await (const items of scanFilePieces(path, name, digest)) yield* items;
}
