/**
 * The `--results` file of a bulk run: `row,order_id,status,trace_id,error` for every row of
 * the batch, checked writable before the first order and written aside then renamed into
 * place, so a run stopped while writing leaves the earlier file whole.
 */
import { constants } from 'node:fs';
import { access, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { endedPartly, endedUnfulfilled } from '../../contract/order-values.js';
import { UsageError } from '../../core/errors/index.js';
import { writeAside } from '../../core/io/atomic-file.js';
import { fileHead } from '../../core/io/file-head.js';
import {
  provablyNotSent,
  readRecordAt,
  rowOutcome,
  type BatchState,
  type BulkRow,
  type ResultRecord,
  type StatusRecord,
} from '../../core/journal/bulk.js';
import { csvLine } from '../../core/output/csv.js';
import { issuedWords } from './bulk-noted.js';
import { NO_ORDER_ID, NOT_FULFILLED, PARTIALLY_DELIVERED } from './bulk-report.js';
import { NOT_RESENT } from './bulk-runner.js';

/**
 * `row,order_id,status,trace_id,error` for every row of the batch, in the file's order;
 * `row` is the input line. An ordered row's answer is read back from the journal.
 */
export async function* resultsCsv(state: BatchState, rows: AsyncIterable<BulkRow>, journal: string): AsyncGenerator<string> {
  yield `${RESULTS_HEADER}\n`;
  const handle = await open(journal, 'r');
  try {
    for await (const row of rows) {
      const outcome = rowOutcome(state, row.row);
      const r: ResultRecord | StatusRecord | undefined =
        outcome === 'ordered' ? await readRecordAt(handle, state.orderedAt.get(row.row)) : state.results.get(row.row);
      let status: string;
      let error: string;
      if (outcome === 'ordered') {
        status = r?.status ?? '';
        error = r?.row_changed
          ? 'ROW_CHANGED: the row changed in the file after it was ordered; this order is of the row as it was'
          : endedUnfulfilled(r?.status)
            ? `${NOT_FULFILLED}: the order was placed and ${endedWords(r)}: no voucher was issued; it is not ordered again`
            : r !== undefined && endedPartly(r.status)
              ? `${PARTIALLY_DELIVERED}: the order was placed and ${endedWords(r)}: ${issuedWords(r)}, the failed part refunded; it is not ordered again`
              : r !== undefined && !r.order_id
                ? `${NO_ORDER_ID}: the order was placed, but its answer named no order id; it is not ordered again`
                : '';
      } else if (outcome === 'refused') {
        status = 'FAILED';
        error = `${r?.error_code ?? 'ERROR'}: ${r?.error ?? ''}`;
      } else if (outcome === 'unknown' && r?.error_code === NOT_RESENT) {
        status = 'UNKNOWN';
        error = r.error ?? '';
      } else if (outcome === 'unknown') {
        status = 'UNKNOWN';
        error = `unknown: resume to find out (re-sent with the same key); last answer ${r?.error_code ?? 'ERROR'}: ${r?.error ?? ''}`;
      } else if (r?.sent === false && provablyNotSent(state, row.row)) {
        status = 'NOT_SENT';
        error = `not sent: ${r.error_code ?? 'ERROR'}: ${r.error ?? ''}`;
      } else if (state.keys.has(row.row)) {
        status = 'UNKNOWN';
        error = 'sent without an answer: resume to find out (re-sent with the same key)';
      } else {
        status = 'NOT_SENT';
        error = 'not sent yet';
      }
      const current = outcome === 'pending' && r?.sent !== false ? undefined : r;
      // The shared writer: an error text a server sent never becomes a spreadsheet formula.
      yield csvLine([row.row, current?.order_id ?? '', status, current?.trace_id ?? '', error]) + '\n';
    }
  } finally {
    await handle.close();
  }
}

/**
 * How an ordered row's order came to its status: `answered REFUNDED` when placed so, or
 * `answered PENDING; followed until it ended REFUNDED` when --wait followed it there (a
 * status line of a journal of an earlier version does not say its first answer).
 */
function endedWords(r: ResultRecord | StatusRecord | undefined): string {
  if (r?.type !== 'status') return `answered ${r?.status}`;
  return `${r.answered_status ? `answered ${r.answered_status}; ` : ''}followed until it ended ${r.status}`;
}

/** The first line of a results file: an existing file is replaced only when it starts so. */
export const RESULTS_HEADER = 'row,order_id,status,trace_id,error';

function resultsPath(file: string, cwd: string): string {
  return isAbsolute(file) ? file : resolve(cwd, file);
}

function cannotWrite(path: string, why: string): UsageError {
  return new UsageError(`cannot write the results file ${path}: ${why}`, 'give --results a file in a directory you can write');
}

/**
 * Fail before the first order when the `--results` file could not be written afterwards, or
 * when writing it would destroy a file that is not a results file: the `--from` file itself,
 * or anything else already there (saved codes, another report). The results of an earlier
 * run (of this batch or another) are replaced, as a resumed run rewrites its own.
 */
export async function assertResultsWritable(file: string, cwd: string, from?: string): Promise<string> {
  const path = resultsPath(file, cwd);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) throw cannotWrite(path, 'it is a directory');
  if (info && from !== undefined && from !== '-') {
    const source = await stat(resultsPath(from, cwd)).catch(() => undefined);
    if (source && source.dev === info.dev && source.ino === info.ino)
      throw new UsageError(
        `--results ${file} is the --from file: writing the results would replace the orders it holds`,
        'give --results another file, e.g. --results results.csv',
      );
  }
  if (info?.isFile() && info.size > 0) {
    const head = await fileHead(path, RESULTS_HEADER.length + 2).then(
      (b) => b.toString('utf8'),
      () => undefined,
    );
    const isResults = head === RESULTS_HEADER || head?.startsWith(`${RESULTS_HEADER}\n`) || head?.startsWith(`${RESULTS_HEADER}\r\n`);
    if (head !== undefined && !isResults)
      throw new UsageError(
        `--results ${path} already holds another file (it does not start with the results header ${RESULTS_HEADER}): it would be replaced`,
        'give --results a new file, or move that one away first; only an earlier results file is replaced',
      );
  }
  try {
    await access(info ? path : dirname(path), constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw cannotWrite(path, code === 'ENOENT' ? `no directory ${dirname(path)}` : (code ?? (e as Error).message));
  }
  return path;
}

export async function writeResults(
  file: string,
  cwd: string,
  state: BatchState,
  rows: AsyncIterable<BulkRow>,
  journal: string,
): Promise<string> {
  const path = resultsPath(file, cwd);
  try {
    // Written beside it, then renamed into place: a run stopped while writing leaves the
    // earlier file whole, never half of the new one.
    const aside = await writeAside(path, async (h) => {
      let chunk = '';
      for await (const line of resultsCsv(state, rows, journal)) {
        chunk += line;
        if (chunk.length >= 64 * 1024) {
          await h.write(chunk);
          chunk = '';
        }
      }
      if (chunk) await h.write(chunk);
    });
    await rename(aside, path).catch(async (e: unknown) => {
      await unlink(aside).catch(() => undefined);
      throw e;
    });
  } catch (e) {
    // The orders are placed and journalled: re-running the same command only writes the file.
    throw new UsageError(
      `cannot write the results file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; the orders themselves are placed and journalled`,
      `run the same command again with another --results file: ordered rows are skipped, never ordered twice (batch ${state.header.batch_id})`,
    );
  }
  return path;
}
