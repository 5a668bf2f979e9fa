/**
 * What a bulk run settles before it orders: the worker count and results file a later run
 * takes from the batch's first run, and the cost its production confirmation names.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors/index.js';
import type { BatchState, BulkRow } from '../../core/journal/bulk.js';
import { notice } from '../../core/output/notice.js';
import type { Factory } from '../../core/run/factory.js';
import { pendingRows } from './bulk-batch.js';
import { addCost, describeTotals } from './bulk-check.js';
import { DEFAULT_CONCURRENCY, type BulkOptions } from './bulk-options.js';
import { assertResultsWritable } from './bulk-results-file.js';

/**
 * The run's worker count and results files: the flags', else those the batch's first run
 * gave (a resume continues the batch as it was started, so a results file is not left
 * behind with the rows of the first run only), else the defaults. A first run's results
 * file that cannot be written now is named and left out: the rows are what the run is for.
 * Every other results file an earlier run wrote (`known`: the batch's own, or for a new
 * batch those of the earlier batches it takes over) that is still there is rewritten too
 * (`alsoResults`), so none is left saying a row failed or is pending that is ordered since;
 * one that cannot be written is named as left as it was.
 */
export async function batchChoices(
  f: Factory,
  o: BulkOptions,
  state: BatchState | undefined,
  takenOver: string[] = [],
): Promise<BulkOptions> {
  const first = state?.header;
  const carried: NonNullable<BulkOptions['carried']> = [];
  let concurrency = o.concurrency;
  if (concurrency === undefined && first?.concurrency !== undefined) {
    concurrency = first.concurrency;
    carried.push('concurrency');
  }
  const known = state?.resultsFiles ?? takenOver;
  let results = o.results;
  const [earliest] = known;
  if (results === undefined && earliest !== undefined) {
    results = await writableOrSaid(
      f,
      o,
      earliest,
      (why) =>
        `${state ? "the batch's first run" : 'an earlier batch this one takes over'} wrote its results to ${earliest}, which this run cannot write (${why}): it writes none`,
    );
    if (results !== undefined) carried.push(state ? 'results' : 'taken-over-results');
  }
  const written = new Set([results === undefined ? earliest : resolve(f.io.cwd, results)]);
  const alsoResults: string[] = [];
  for (const path of known) {
    if (written.has(path)) continue;
    written.add(path);
    // Gone since: it shows nothing stale.
    if (!existsSync(path)) continue;
    const writable = await writableOrSaid(
      f,
      o,
      path,
      (why) =>
        `${path}, the results file of an earlier run of these rows, cannot be written (${why}): it is left as it was, so a row it says FAILED or PENDING may be ordered since`,
    );
    if (writable !== undefined) alsoResults.push(writable);
  }
  return { ...o, concurrency: concurrency ?? DEFAULT_CONCURRENCY, results, alsoResults, carried };
}

/** The results file `path` checked writable, or undefined once RESULTS_NOT_WRITTEN says why not (`said`). */
async function writableOrSaid(f: Factory, o: BulkOptions, path: string, said: (why: string) => string): Promise<string | undefined> {
  try {
    return await assertResultsWritable(path, f.io.cwd, o.from);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    notice(f.io, o.settings, 'RESULTS_NOT_WRITTEN', said(error.message));
    return undefined;
  }
}

/** The vouchers and totals of the rows a later run of a batch has left to order; rows without a currency column are not costed. */
export async function pendingCost(
  rows: () => AsyncIterable<BulkRow>,
  state: BatchState,
): Promise<{ cost: { vouchers: number; uncosted: number }; totals: Map<string, number> }> {
  const cost = { vouchers: 0, uncosted: 0 };
  const totals = new Map<string, number>();
  for await (const row of pendingRows(rows, state)) {
    cost.vouchers += row.quantity;
    if (row.currency === undefined) cost.uncosted += 1;
    else addCost(totals, row, row.currency);
  }
  return { cost, totals };
}

/**
 * The vouchers and the total a batch's rows still to order come to, and the wallets charged,
 * for its production confirmation: `(3 vouchers), total 45.00 USD charged to the USD wallet,`.
 */
export function batchCost(cost: { vouchers: number; uncosted: number }, totals: Map<string, number> | undefined): string {
  const vouchers = ` (${cost.vouchers} voucher${cost.vouchers === 1 ? '' : 's'})`;
  const currencies = [...(totals?.keys() ?? [])];
  const charged =
    currencies.length === 0
      ? ''
      : `total ${describeTotals(totals!)} charged to the ${currencies.join(' and ')} wallet${currencies.length === 1 ? '' : 's'}`;
  const uncosted = cost.uncosted === 0 ? '' : `${cost.uncosted} row${cost.uncosted === 1 ? '' : 's'} of no known currency not in the total`;
  const said = [charged, uncosted].filter((t) => t !== '');
  return `${vouchers}${said.length > 0 ? `, ${said.join('; ')}` : ''},`;
}
