/**
 * The bulk input file: CSV with a header, or NDJSON, with the columns product_id,
 * denomination, quantity (default 1), reference, currency. Every row is checked against
 * the contract; every bad row is reported by its line number.
 */
import { CreateOrderRequest } from '../../contract/orders.js';
import type { BulkRow } from '../../core/journal/bulk.js';
import { exactDenomination, parseCount } from './order-input.js';

export const BULK_COLUMNS = ['product_id', 'denomination', 'quantity', 'reference', 'currency'] as const;
type BulkColumn = (typeof BULK_COLUMNS)[number];

export interface RowProblem {
  /** Line number in the file (1-based). */
  line: number;
  message: string;
}

export interface ParsedBulkFile {
  format: 'csv' | 'ndjson';
  rows: BulkRow[];
  problems: RowProblem[];
}

/** A raw record: the cells by column name, with the line it starts on. */
interface RawRecord {
  line: number;
  cells: Partial<Record<string, unknown>>;
}

/** RFC 4180 CSV: quoted cells with "" escapes and line breaks, CRLF or LF. */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let touched = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') { cell += '"'; i++; } else quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      continue;
    }
    if (ch === '"' && cell === '') { quoted = true; touched = true; continue; }
    if (ch === ',') { cells.push(cell); cell = ''; touched = true; continue; }
    if (ch === '\r' && text[i + 1] === '\n') continue;
    if (ch === '\n') {
      cells.push(cell);
      if (touched || cells.some((c) => c !== '')) records.push({ line: start, cells });
      cells = []; cell = ''; touched = false;
      line++;
      start = line;
      continue;
    }
    cell += ch;
    touched = true;
  }
  if (quoted) records.push({ line: start, cells: [...cells, cell, '\u0000unterminated'] });
  else if (touched || cell !== '' || cells.length > 0) { cells.push(cell); records.push({ line: start, cells }); }
  return records;
}

function csvRecords(text: string, problems: RowProblem[]): RawRecord[] {
  const records = parseCsv(text);
  const header = records.shift();
  if (!header) return [];
  const names = header.cells.map((c) => c.trim().toLowerCase());
  const unknown = names.filter((n) => !(BULK_COLUMNS as readonly string[]).includes(n));
  if (unknown.length > 0) problems.push({ line: header.line, message: `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')} (columns: ${BULK_COLUMNS.join(', ')})` });
  const dup = names.filter((n, i) => names.indexOf(n) !== i);
  if (dup.length > 0) problems.push({ line: header.line, message: `column ${JSON.stringify(dup[0])} appears twice` });
  for (const required of ['product_id', 'denomination']) {
    if (!names.includes(required)) problems.push({ line: header.line, message: `the header has no ${required} column (columns: ${BULK_COLUMNS.join(', ')})` });
  }
  return records.map((r): RawRecord | undefined => {
    if (r.cells[r.cells.length - 1] === '\u0000unterminated') {
      problems.push({ line: r.line, message: 'a quoted cell is never closed' });
      return undefined;
    }
    if (r.cells.length !== names.length) {
      problems.push({ line: r.line, message: `${r.cells.length} cells, the header has ${names.length}` });
      return undefined;
    }
    const cells: Record<string, string> = {};
    names.forEach((n, i) => { cells[n] = (r.cells[i] as string).trim(); });
    return { line: r.line, cells };
  }).filter((r): r is RawRecord => r !== undefined);
}

function ndjsonRecords(text: string, problems: RowProblem[]): RawRecord[] {
  const records: RawRecord[] = [];
  text.split('\n').forEach((raw, i) => {
    const lineText = raw.replace(/\r$/, '');
    if (lineText.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch {
      problems.push({ line: i + 1, message: 'not a JSON object' });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ line: i + 1, message: 'not a JSON object' });
      return;
    }
    const keys = Object.keys(value);
    const unknown = keys.filter((k) => !(BULK_COLUMNS as readonly string[]).includes(k));
    if (unknown.length > 0) {
      problems.push({ line: i + 1, message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')} (fields: ${BULK_COLUMNS.join(', ')})` });
      return;
    }
    records.push({ line: i + 1, cells: value as Record<string, unknown> });
  });
  return records;
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
  if (raw.product_id !== undefined && typeof raw.product_id !== 'string' && typeof raw.product_id !== 'number') errors.push('product_id: must be text');
  if (product === undefined) errors.push('product_id: is required');
  let denomination: number | undefined;
  if (denomText === undefined) errors.push('denomination: is required');
  else {
    // The same exact reading as --denomination: from the digits, never rounded.
    try {
      denomination = exactDenomination(denomText, get('currency'), (why) => new Error(why));
    } catch (e) {
      errors.push(`denomination: ${JSON.stringify(denomText)} ${(e as Error).message}`);
    }
  }
  let quantity = 1;
  if (qtyText !== undefined) {
    const q = typeof raw.quantity === 'number' ? raw.quantity : parseCount(qtyText);
    if (q === undefined) errors.push(`quantity: ${JSON.stringify(qtyText)} is not a whole number`);
    else quantity = q;
  }
  if (errors.length > 0 || product === undefined || denomination === undefined) return { errors };
  const reference = get('reference');
  const currency = get('currency');
  const body = { items: [{ product_id: product, denomination, quantity }], ...(currency !== undefined ? { currency } : {}), ...(reference !== undefined ? { reference } : {}) };
  const parsed = CreateOrderRequest.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] === 'items' ? String(issue.path[2] ?? 'quantity') : String(issue.path[0] ?? 'row');
      errors.push(`${field}: ${issue.message}`);
    }
    return { errors };
  }
  return {
    errors,
    row: { row: rec.line, product_id: product, denomination, quantity, ...(reference !== undefined ? { reference } : {}), ...(currency !== undefined ? { currency } : {}) },
  };
}

/** CSV unless the name says NDJSON (.ndjson, .jsonl) or the first character is `{`. */
export function detectFormat(name: string, text: string): 'csv' | 'ndjson' {
  if (/\.(ndjson|jsonl)$/i.test(name)) return 'ndjson';
  if (/\.csv$/i.test(name)) return 'csv';
  return text.trimStart().startsWith('{') ? 'ndjson' : 'csv';
}

/** Parse and check every row; rows and problems both come back, in line order. */
export function parseBulkFile(name: string, content: string): ParsedBulkFile {
  const text = content.replace(/^\uFEFF/, '');
  const format = detectFormat(name, text);
  const problems: RowProblem[] = [];
  const records = format === 'csv' ? csvRecords(text, problems) : ndjsonRecords(text, problems);
  const rows: BulkRow[] = [];
  for (const rec of records) {
    const { row, errors } = toRow(rec);
    if (errors.length > 0) problems.push({ line: rec.line, message: errors.join('; ') });
    else if (row) rows.push(row);
  }
  problems.sort((a, b) => a.line - b.line);
  return { format, rows, problems };
}
