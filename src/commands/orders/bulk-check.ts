/**
 * The checks of a bulk file before anything is ordered: every row read against the contract
 * (scanInput), then against the catalog, stock and the wallets (preflightRows). A file with
 * bad rows is refused whole, naming the first of them; nothing is sent.
 */
import { stat } from 'node:fs/promises';
import { fileHead } from '../../core/io/file-head.js';
import { isAbsolute, resolve } from 'node:path';
import { formatMoney, fromMinor, toMinor } from '../../contract/money-format.js';
import { CliError, UsageError, type ErrorKind } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import type { BulkRow } from '../../core/journal/bulk.js';
import { Carry, ReferenceIndex } from './bulk-identity.js';
import type { Factory } from '../../core/run/factory.js';
import { noticeFor } from '../../core/output/notice.js';
import { folderHint } from './bulk-folder.js';
import { scanFilePieces, type FileDigest, type RowProblem } from './bulk-input.js';
import { itemProblem, lookupProducts, productCurrency, stockProblem, unreadProducts } from './preflight.js';

/** At most this many bad rows are named; the rest are counted. */
const SHOWN_PROBLEMS = 50;

/** The bad rows of a file: the first SHOWN_PROBLEMS named, the lines counted (a CSV header's apart). */
export class Problems {
  readonly shown: RowProblem[] = [];
  count = 0;
  /** Rows with a problem, the header not counted. */
  lines = 0;
  /** The CSV header has a problem. */
  header = false;
  private lastLine = -1;

  add(p: RowProblem): void {
    this.count += 1;
    if (p.header) this.header = true;
    else if (p.line !== this.lastLine) {
      this.lines += 1;
      this.lastLine = p.line;
    }
    if (this.shown.length < SHOWN_PROBLEMS) this.shown.push(p);
  }
}

/**
 * The rows refused before anything is ordered: a usage error, or the kind the first row's
 * order would fail with. The checks of a file run in turn (the contract, references, the
 * catalog, the wallets), each naming every row it refuses; `later` names the checks still to
 * come once these rows are fixed, so that a first report is not read as the whole list.
 */
export function badRows(file: string, problems: Problems, what: string, kind: ErrorKind = 'usage', later?: string): CliError {
  const shown = [...problems.shown].sort((a, b) => a.line - b.line).map((p) => `line ${p.line}: ${p.message}`);
  if (problems.count > shown.length) shown.push(`… and ${problems.count - shown.length} more`);
  const { lines, header } = problems;
  // A header's problem is no bad row: a header no column could be read from leaves the rows unchecked.
  const rows = lines > 0 ? `${lines} bad row${lines === 1 ? '' : 's'}` : '';
  const summary = header ? (rows ? `a bad header and ${rows}` : 'a bad header') : rows;
  const message = `${file}: ${summary} (${what}); nothing was ordered\n  ${shown.join('\n  ')}`;
  const fix = header ? (lines > 0 ? 'the header and the lines named above' : 'the header named above') : 'the lines named above';
  const hint = `fix ${fix} and run the same command again${later ? `; ${later} are checked after that` : ''}`;
  return kind === 'usage' ? new UsageError(message, hint) : new CliError(kind, message, hint);
}

/** What the first read of the input file found. */
export interface Input {
  /** As the user gave it. */
  name: string;
  path: string;
  sha256: string;
  /** The file as its whole read found it (stampOf): later reads stop if it changed since. */
  stamp?: string;
  rows: number;
  problems: Problems;
  products: Set<string>;
  references: ReferenceIndex;
  everyRowHasReference: boolean;
  /** A CSV file's separator (a comma, a semicolon, a tab), as read from its header. */
  separator?: string;
  /**
   * Every row, as this read checked them, for a file of at most HELD_ROWS rows: the later
   * passes (catalog, journal, ordering, results) then read them from here instead of
   * reading and checking the file again. Undefined for a larger file, read afresh at each
   * pass so that memory does not grow with the file.
   */
  held?: BulkRow[];
}

/**
 * Rows of a file held in memory after its first read (a few hundred bytes each): below
 * this a file's rows cost less memory than the run's own baseline varies by; above it
 * the file is read again at each pass.
 */
export const HELD_ROWS = 10_000;

function cannotRead(file: string, e: unknown, hint: string): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  return new UsageError(
    `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message)}`,
    hint,
  );
}

/**
 * What tells a file's content apart without reading it again: another file put at the path
 * has another inode, and a write in place changes its size or its change time.
 */
async function stampOf(path: string): Promise<string | undefined> {
  const s = await stat(path, { bigint: true }).catch(() => undefined);
  return s && `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

function changedUnderRun(name: string): UsageError {
  return new UsageError(
    `${name} changed while the batch was running (written again, replaced or removed): no row read after the change was sent`,
    'run the same command again once the file is written whole: rows with a reference already ordered are skipped, no row is ordered twice',
  );
}

/**
 * The valid rows of a file, read afresh in pieces at each call. Each piece is used only
 * once the file is seen to be still the one checked (`stamp`, taken when it was read
 * whole): a file written again in place while a batch runs would otherwise give other
 * rows under the line numbers already keyed, ordering some references twice and others
 * never.
 */
export function fileRows(path: string, name: string = path, stamp?: string): () => AsyncIterable<BulkRow> {
  return async function* rows() {
    for await (const items of scanFilePieces(path, name)) {
      // Checked after the piece was read: a change that could have reached it came first.
      if (stamp !== undefined && (await stampOf(path)) !== stamp) throw changedUnderRun(name);
      for (const item of items) if (item.row) yield item.row;
    }
  };
}

/**
 * Rows held in memory, iterable either way: `for await` reads them as it reads a file, and
 * a consumer that can take them synchronously (the ordering: pendingRows, runRows) skips a
 * promise per row.
 */
export function heldRows(held: readonly BulkRow[]): AsyncIterable<BulkRow> & Iterable<BulkRow> {
  return {
    [Symbol.iterator]: () => held[Symbol.iterator](),
    async *[Symbol.asyncIterator]() {
      yield* held;
    },
  };
}

/**
 * Run `f` on every row: synchronously when they are held in memory (heldRows: no promise
 * per row, for each pass before the first order), else as the file is read again.
 */
export async function forEachRow(rows: AsyncIterable<BulkRow>, f: (row: BulkRow) => void): Promise<void> {
  if (Symbol.iterator in rows) for (const row of rows as unknown as Iterable<BulkRow>) f(row);
  else for await (const row of rows) f(row);
}

/** The rows of a checked input: those its first read held, or the file read afresh at each call. */
export function inputRows(input: Input): () => AsyncIterable<BulkRow> {
  const { held } = input;
  if (!held) return fileRows(input.path, input.name, input.stamp);
  return () => heldRows(held);
}

/** Read the whole file once: every row checked against the contract, its digest, its products and references. */
/**
 * Whether the file's first 8 KiB hold a NUL byte (a binary file: no CSV or NDJSON does): the
 * bytes looked at and, when it starts with a UTF-16 byte order mark, which UTF-16 it is; else undefined.
 */
async function holdsNul(path: string): Promise<{ bytes: number; utf16?: string } | undefined> {
  const head = await fileHead(path, 8192).catch(() => undefined);
  if (!head?.includes(0)) return undefined;
  const utf16 = head[0] === 0xff && head[1] === 0xfe ? 'UTF-16 LE' : head[0] === 0xfe && head[1] === 0xff ? 'UTF-16 BE' : undefined;
  return { bytes: head.length, ...(utf16 ? { utf16 } : {}) };
}

export async function scanInput(f: Factory, file: string, hint = 'give the path of a CSV (with a header) or NDJSON file'): Promise<Input> {
  const path = isAbsolute(file) ? file : resolve(f.io.cwd, file);
  const digest: FileDigest = {};
  const input: Input = {
    name: file,
    path,
    sha256: '',
    rows: 0,
    problems: new Problems(),
    products: new Set(),
    references: new ReferenceIndex(),
    everyRowHasReference: true,
  };
  let held: BulkRow[] | undefined = [];
  // Only a regular file: opening a FIFO with no writer would wait for ever, and the rows
  // are read more than once (checked, ordered, and again by --resume).
  const kind = await stat(path).then(
    (s) =>
      s.isFile()
        ? undefined
        : s.isDirectory()
          ? 'it is a directory'
          : s.isFIFO()
            ? 'it is a pipe (FIFO), not a file'
            : 'it is not a regular file',
    () => undefined,
  );
  if (kind === 'it is a directory')
    throw new UsageError(`cannot read ${file}: it is a directory, not a file`, await folderHint(file, path));
  if (kind)
    throw new UsageError(
      `cannot read ${file}: ${kind}`,
      'the rows are read more than once (checked, then ordered, again by --resume): save them to a regular file and pass its path',
    );
  const binary = await holdsNul(path);
  if (binary?.utf16)
    throw new UsageError(
      `${file} is saved as ${binary.utf16} text (it starts with its byte order mark), and only UTF-8 is read: nothing was ordered`,
      `save it as UTF-8 (in a spreadsheet: Save As "CSV UTF-8"; or iconv -f UTF-16 -t UTF-8 FILE > rows.csv) and pass that file`,
    );
  if (binary)
    throw new UsageError(
      `${file} is not a text file (it holds NUL bytes within its first ${binary.bytes} bytes): nothing was ordered`,
      `${hint}; a spreadsheet saved as .xlsx is binary: export it as CSV (UTF-8)`,
    );
  const before = await stampOf(path);
  try {
    for await (const items of scanFilePieces(path, path, digest)) {
      for (const item of items) {
        if (item.problem) {
          input.problems.add(item.problem);
          continue;
        }
        input.rows += 1;
        if (held && held.push(item.row) > HELD_ROWS) held = undefined;
        input.products.add(item.row.product_id);
        if (item.row.reference !== undefined) input.references.add(item.row.reference);
        else input.everyRowHasReference = false;
      }
    }
  } catch (e) {
    // What the file holds said in words (a JSON array): passed on as it is.
    if (e instanceof UsageError) throw e;
    throw cannotRead(file, e, hint);
  }
  input.sha256 = digest.sha256 as string;
  if (digest.separator !== undefined) input.separator = digest.separator;
  input.stamp = await stampOf(path);
  if (input.stamp !== before)
    throw new UsageError(
      `${file} changed while it was being read: nothing was ordered`,
      'run the same command again once the file is written whole',
    );
  if (held && input.problems.count === 0) input.held = held;
  return input;
}

/** Catalog and balance checks of a new batch's rows not ordered by an earlier batch; every bad row by line number. */
/**
 * The rows still to order checked against the catalog (product, denomination, currency) and
 * their totals per currency. Refused rows stop the batch before its first order, with the
 * exit code the first of them would get as an order (404 not found, 403, 422/409
 * rejected), as a single order's dry run does. A dry run also refuses an out-of-stock
 * product, as a single order's does; a run leaves that to the server, row by row.
 */
export async function preflightRows(
  f: Factory,
  client: ApiClient,
  input: Input,
  rows: () => AsyncIterable<BulkRow>,
  carry: Carry,
  dryRun: boolean,
): Promise<{ totals: Map<string, number>; toOrder: number; vouchers: number; uncosted: number; unread: string[] }> {
  let ids: Set<string> = input.products;
  if (!carry.empty) {
    ids = new Set();
    await forEachRow(rows(), (row) => {
      if (!carry.ordered(row)) ids.add(row.product_id);
    });
  }
  const lookups = await lookupProducts(client, ids, f.io.signal, true);
  const unread = unreadProducts(lookups, ids);
  if (unread.length > 0)
    noticeFor(
      f,
      'PRODUCT_NOT_CHECKED',
      `the catalog's answer for product ${unread.join(', ')} held no record this version can read: its denominations, currency and stock were not checked`,
    );
  const problems = new Problems();
  const totals = new Map<string, number>();
  let toOrder = 0;
  let vouchers = 0;
  // Rows of no known currency (no currency column, a product that names none): not costed.
  let uncosted = 0;
  let kind: ErrorKind | undefined;
  // The trace ID of the catalog answer behind the first bad row: what support asks for.
  let traceId: string | undefined;
  await forEachRow(rows(), (row) => {
    if (carry.ordered(row)) return;
    toOrder += 1;
    vouchers += row.quantity;
    const problem = itemProblem(row, lookups, row.currency) ?? (dryRun ? stockProblem(row, lookups) : undefined);
    if (problem) {
      problems.add({ line: row.row, message: problem.message });
      kind ??= problem.kind;
      traceId ??= lookups.get(row.product_id)?.traceId;
      return;
    }
    const currency = row.currency ?? productCurrency(lookups.get(row.product_id));
    if (!currency) {
      uncosted += 1;
      return;
    }
    addCost(totals, row, currency);
  });
  if (problems.count > 0)
    throw Object.assign(badRows(input.name, problems, 'checked against the catalog', kind, "the wallets' balances"), { traceId });
  return { totals, toOrder, vouchers, uncosted, unread };
}

/** Add a row's cost (denomination × quantity, in minor units) to its currency's total. */
export function addCost(totals: Map<string, number>, row: BulkRow, currency: string): void {
  totals.set(currency, (totals.get(currency) ?? 0) + toMinor(row.denomination, currency) * row.quantity);
}

export function describeTotals(totals: Map<string, number>): string {
  return [...totals].map(([c, m]) => formatMoney(fromMinor(m, c), c)).join(' + ');
}
