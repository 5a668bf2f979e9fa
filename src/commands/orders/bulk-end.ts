/**
 * The end of a bulk run once every row was sent (or the run stopped): with --wait, the
 * orders not final yet followed (bulk-follow.ts); then the --results file, the summary, and
 * the error or closing line the exit code comes from.
 */
import { CliError, faultAfterWrite, PendingError, QueryRunError } from '../../core/errors/index.js';
import { formatDuration } from '../../core/http/duration.js';
import type { ApiClient, RetryTally } from '../../core/http/types.js';
import type { BulkJournal, BulkRow } from '../../core/journal/bulk.js';
import { strictContract } from '../../core/output/drift-report.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { notice } from '../../core/output/notice.js';
import type { Factory } from '../../core/run/factory.js';
import { causesWords } from '../../core/run/retry-notices.js';
import type { LockedRun } from './bulk-batch.js';
import { followPending, type FollowBatchOutcome } from './bulk-follow.js';
import { notedRowsWords, pendingFollowWords, rowsOf, toComeWords } from './bulk-noted.js';
import { DEFAULT_CONCURRENCY, type BulkOptions } from './bulk-options.js';
import { printSummary, summarize, unfinishedBatchError } from './bulk-report.js';
import { writeResults } from './bulk-results-file.js';
import type { RunOutcome } from './bulk-runner.js';

/** Follow (--wait), write the results file, print the summary, and end the run as its rows say. */
export async function endBatch(
  f: Factory,
  o: BulkOptions,
  run: LockedRun,
  journal: BulkJournal,
  rows: () => AsyncIterable<BulkRow>,
  skipped: number,
  outcome: RunOutcome,
  client: ApiClient,
  retried?: { tally: RetryTally; since: string },
): Promise<void> {
  const { io } = f;
  const { batchId } = run;
  const state = journal.state;
  // --wait: the orders not final yet (of this run or an earlier one) are followed once every row was sent.
  let followed: FollowBatchOutcome | undefined;
  if (o.wait && !outcome.interrupted && !outcome.halted && state.unsettled.size > 0)
    followed = await followPending(f, client, journal, {
      timeoutMs: o.waitMs,
      concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
      requestTimeoutMs: run.profile.timeout_ms,
      settings: o.settings,
    });
  const resultsPath = o.results !== undefined ? await writeResults(o.results, io.cwd, state, rows(), journal.path) : null;
  // Earlier runs' results files too: none is left with a row's outcome as it was.
  for (const path of o.alsoResults ?? []) await writeResults(path, io.cwd, state, rows(), journal.path);
  const summary = summarize(state, skipped, journal.path, resultsPath);
  // Whether the hint for refused rows may offer an edit of the file (rows without a reference refuse one).
  const referenced = summary.failed === 0 || (await everyRowReferenced(run, rows));
  try {
    await printSummary(io, summary, o.settings);
  } catch (error) {
    // A --jmespath that could not run on the summary: the orders stand.
    if (!(error instanceof QueryRunError)) throw error;
    throw faultAfterWrite(
      error,
      `batch ${batchId} ran: ${rowsOf(summary.ordered, summary.rows, ['is', 'are'])} ordered`,
      `do not order the file as a new batch: the same command again skips the ordered rows (${run.resumeCmd})`,
    );
  }
  // Retries said at most every 30 s in the run: their count, and where each one is.
  if (retried && retried.tally.total > 0) {
    const n = retried.tally.total;
    notice(
      io,
      o.settings,
      'RETRIED',
      `${n === 1 ? 'One request was retried' : `Requests were retried ${n} times`} along the way (${causesWords(retried.tally.byCause)}); each attempt is in the request log: ${suggestedCommand(f.globals(), ['log', '--failed', '--since', retried.since])}`,
    );
  }

  const resume = run.resumeCmd;
  if (outcome.interrupted) {
    throw new CliError(
      'interrupted',
      `interrupted: ${rowsOf(summary.ordered, summary.rows, ['is', 'are'])} ordered, ${summary.not_done + summary.failed + summary.unknown} left`,
      `continue where it stopped (no row is ordered twice): ${resume}`,
    );
  }
  if (followed?.interrupted) {
    throw new CliError(
      'interrupted',
      `interrupted while following the orders not final yet: every row is ordered (none is ordered again), ${rowsOf(summary.pending, summary.rows, ['is', 'are'])} still pending`,
      `follow them again: ${suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId, '--wait'])}`,
    );
  }
  if (outcome.halted) {
    // The server stopped answering: every row left is either provably not sent or of
    // unknown outcome, and the resume command picks up both.
    const { after, last, unanswered } = outcome.halted;
    const unfinished = unfinishedBatchError(state, summary, resultsPath, resume, false, f.globals(), referenced);
    if (last.http_status === 401)
      throw new CliError(
        'auth',
        `stopped sending: the server refused the credentials (HTTP 401 ${last.error_code ?? 'ERROR'}: ${last.error ?? ''}), as it would for every row; nothing was ordered with them. ${unfinished?.message ?? ''}`.trim(),
        `check the API key and secret (${suggestedCommand(f.globals(), ['doctor'])}), then resume; the rows it refused are sent again with their keys, no row is ordered twice: ${resume}`,
      );
    throw new CliError(
      'network',
      `stopped sending: ${after} rows in a row ${unanswered ? 'got no answer' : 'could not be sent'} (${last.error_code ?? 'ERROR'}: ${last.error ?? 'no connection'}). ${unfinished?.message ?? ''}`.trim(),
      `once the server answers again (check with: ${suggestedCommand(f.globals(), ['doctor'])}), resume; no row is ordered twice: ${resume}`,
    );
  }
  const unfinished = unfinishedBatchError(
    state,
    summary,
    resultsPath,
    resume,
    strictContract({ io, globals: f.globals() }),
    f.globals(),
    referenced,
  );
  // Rows placed whose answer named no order id: a success, said with how to find them.
  const { unnamed } = notedRowsWords(summary, f.globals());
  if (unnamed) notice(io, o.settings, 'ROWS_WITHOUT_ORDER_ID', unnamed);
  if (unfinished) throw unfinished;
  if (o.wait && summary.pending > 0) {
    // Rows still not final when the wait ended: exit 8 as `orders wait` does, or the kind of
    // the error that stopped the following (the server gone, the rate limit used up).
    const them = summary.pending === 1 ? 'it' : 'them';
    const words = `${rowsOf(summary.pending, summary.rows, ['is', 'are'])} ordered and still pending`;
    const follow = `keep following ${them} (no row is ordered again): ${suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId, '--wait'])}`;
    if (followed?.stopped)
      throw new CliError(
        followed.stopped.kind,
        `${words}: following ${them} stopped (${followed.stopped.code}: ${followed.stopped.message})`,
        follow,
      );
    throw new PendingError(`${words} after ${formatDuration(o.waitMs)} (not final yet: ${toComeWords(summary.pending)} to come)`, follow);
  }
  const changed = summary.changed_since_ordered;
  const asWas =
    changed === 0
      ? ''
      : `, ${changed === summary.rows ? (changed === 1 ? 'as it was' : 'all as they were') : `${changed} as ${changed === 1 ? 'it was' : 'they were'}`} before the file changed (not ordered again as it has them now)`;
  // Orders accepted and fulfilled later (PENDING): a success, said apart from those delivered, with how to follow them.
  const pending =
    summary.pending === 0
      ? ''
      : `: ${summary.rows === 1 ? '' : `${summary.delivered} delivered, `}${summary.pending} pending (not final yet: ${toComeWords(summary.pending)} to come; ${pendingFollowWords(summary, f.globals())})`;
  notice(
    io,
    o.settings,
    'BATCH_ORDERED',
    summary.rows === 1
      ? `The row is ordered${asWas}${pending}.`
      : `${summary.rows === 2 ? 'Both' : `All ${summary.rows}`} rows ordered${asWas}${pending}.`,
  );
}

/** Every row of the batch's file has a reference (known from the scan of a new batch's file, else read from its rows). */
async function everyRowReferenced(run: LockedRun, rows: () => AsyncIterable<BulkRow>): Promise<boolean> {
  if (run.input) return run.input.everyRowHasReference;
  for await (const row of rows()) if (row.reference === undefined) return false;
  return true;
}
