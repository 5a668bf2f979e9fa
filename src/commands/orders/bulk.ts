/**
 * `orders create --from FILE` / `--resume BATCH_ID`: a bulk order. Every row is checked
 * (contract, then catalog and balance) before the first order; the batch id comes from the
 * file's content, so running the same file again continues the same batch; the journal
 * makes sure no row is ever ordered twice.
 *
 * The file is read in pieces and checked once; the rows of a file of up to HELD_ROWS rows
 * are kept from that read for the later passes (catalog, order, results). A larger file is
 * read again at each pass, never held whole: memory does not grow with the number of rows.
 * Its SHA-256, kept in the journal, makes sure a resume reads the same rows.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatMoney, fromMinor } from '../../contract/money-format.js';
import { configLocation } from '../../core/config/location.js';
import { CliError, UsageError } from '../../core/errors/index.js';
import { compileAnswerChecks } from '../../core/http/validate.js';
import { keepHeapSmall, optimiseSooner } from '../../core/io/runtime.js';
import { BatchLock } from '../../core/journal/batch-lock.js';
import {
  batchIdOf,
  batchTarget,
  BulkJournal,
  journalPath,
  listBatchIds,
  rowCount,
  sha256Hex,
  type BatchState,
  type BulkRow,
  type DamagedBatch,
} from '../../core/journal/bulk.js';
import {
  batchesSharing,
  batchOfFile,
  Carry,
  damagedOverlap,
  damagedOverlapError,
  duplicateReferences,
  targetBatches,
  unmatchedEdit,
  unmatchedEditError,
} from './bulk-identity.js';
import { printRecord } from '../../core/output/print.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import type { Factory } from '../../core/run/factory.js';
import { startProgress } from './bulk-progress.js';
import { detectFormat, separatorWords } from './bulk-input.js';
import { badRows, describeTotals, inputRows, preflightRows, Problems, scanInput, type Input } from './bulk-check.js';
import { printSummary, summarize } from './bulk-report.js';
import { assertResultsWritable } from './bulk-results-file.js';
import { journalNotSent, runRows } from './bulk-runner.js';
import { endBatch } from './bulk-end.js';
import { batchChoices, batchCost, pendingCost } from './bulk-confirm.js';
import { confirmOrStop, productionQuestion, productionReason } from './confirm.js';
import type { CreateFlags } from './index.js';
import { checkFunds, walletsByCurrency } from './preflight.js';
import { buildBulk, DEFAULT_CONCURRENCY, type BulkOptions } from './bulk-options.js';
import { batchRows, openBatch, pendingRows, startBatch, takeLock, type LockedRun } from './bulk-batch.js';
import { notice } from '../../core/output/notice.js';

export async function run(f: Factory, flags: CreateFlags): Promise<void> {
  await runBulk(f, await buildBulk(f, flags));
}

export async function runBulk(f: Factory, o: BulkOptions): Promise<void> {
  const { io } = f;
  // The V8 flags below make the launcher's code cache stop applying to what loads after
  // them (src/core/io/v8-flags.ts): what the batch runs later is loaded first.
  await Promise.all([import('../../core/run/profile-client.js'), import('../../core/http/undici.js').then((m) => m.loadPool())]);
  keepHeapSmall();
  optimiseSooner();
  let input: Input | undefined;
  if (o.from !== undefined) {
    input = await scanInput(f, o.from);
    if (input.problems.count > 0)
      throw badRows(
        o.from,
        input.problems,
        'checked against the contract',
        'usage',
        "repeated references, then the products, denominations and currencies against the catalog and the wallets' balances",
      );
    if (input.rows === 0)
      throw new UsageError(
        `${o.from} holds no rows`,
        detectFormat(o.from, '') === 'ndjson'
          ? 'an NDJSON file needs one order per line, e.g. {"product_id":"…","denomination":10,"quantity":1,"reference":"…"}'
          : `a CSV needs a header (product_id,denomination,quantity,reference,currency: separated by commas, semicolons or tabs) and at least one row`,
      );
  }
  if (o.results !== undefined) await assertResultsWritable(o.results, io.cwd, o.from);
  // The config directory only: opening the config store would load conf, whose exit hook
  // re-raises Ctrl-C and would cut the clean stop below short.
  const config = { dir: configLocation(io.env).dir };
  const profile = await f.profile();
  const target = batchTarget(profile.base_url ?? '', profile.api_key ?? '');
  let batchId = o.resume ?? batchIdOf(input!.sha256, target);
  // A batch of this very file started under another id (ids were once derived otherwise) continues.
  if (o.resume === undefined && !existsSync(journalPath(config.dir, batchId)))
    batchId = (await batchOfFile(config.dir, target, input!.sha256)) ?? batchId;
  // The file of a batch an edit took over, put back as it was: it runs as a batch of its own
  // after the one that took it over (an id derived from both, so a re-run continues it), and
  // takes that one's rows over by reference in turn, as any edit does.
  for (let hops = 0; o.resume === undefined && hops < MAX_SUPERSEDED_HOPS && existsSync(journalPath(config.dir, batchId)); hops++) {
    const by = (await BulkJournal.read(config.dir, batchId).catch(() => undefined))?.superseded_by;
    if (by === undefined) break;
    batchId = batchIdOf(sha256Hex(`${input!.sha256}\nafter ${by}`), target);
  }
  const resumeCmd = suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId]);
  // One run per batch: a second run of the same file (or --resume) beside this one is
  // refused before it reads the journal. A dry run orders nothing and takes no lock.
  let lock: BatchLock | undefined;
  if (!o.dryRun) lock = await takeLock(f, config.dir, batchId, resumeCmd);
  try {
    await runLocked(f, o, { input, configDir: config.dir, profile, target, batchId, resumeCmd });
  } finally {
    await lock?.release();
  }
}

/** Put-back files followed through batches that took them over, at most (each hop reads a journal). */
const MAX_SUPERSEDED_HOPS = 64;

async function runLocked(f: Factory, o: BulkOptions, run: LockedRun): Promise<void> {
  const opened = await openBatch(f, o, run.configDir, run.batchId);
  let journal = opened.journal;
  try {
    journal = await orderBatch(f, o, run, opened.state, journal);
  } finally {
    await journal?.close();
  }
}

async function orderBatch(
  f: Factory,
  o: BulkOptions,
  run: LockedRun,
  state: BatchState | undefined,
  opened: BulkJournal | undefined,
): Promise<BulkJournal | undefined> {
  const { io } = f;
  const { input, profile, target, batchId } = run;
  const config = { dir: run.configDir };
  if (o.resume !== undefined && !state) {
    throw new UsageError(
      `no batch ${batchId} in ${journalPath(config.dir, batchId).replace(/\/[^/]+$/, '')}`,
      'check the id printed by the first run, or run the original file again with --from',
    );
  }
  if (state?.header.target !== undefined && state.header.target !== target) {
    throw new UsageError(
      `batch ${batchId} orders through ${state.header.base_url ?? 'another server'} with another API key or server than profile ${profile.name} (${profile.base_url ?? 'no base URL'})`,
      'resume it with a profile that has its server and API key (--profile NAME). Running the file with --from here starts a new batch that orders every row again, those this batch ordered included: do that only for another account (a rotated key or another spelling of the host is the same account)',
    );
  }
  if (state?.superseded_by !== undefined) {
    throw new UsageError(
      `batch ${batchId} was taken over by batch ${state.superseded_by} (an edited file with the same references): it is not run again, so no row is ordered twice`,
      `continue the edited file (run it again with --from), or ${suggestedCommand(f.globals(), ['orders', 'create', '--resume', state.superseded_by])}`,
    );
  }
  if (state && input && state.header.sha256 !== input.sha256) {
    throw new UsageError(
      `${o.from} is not the file of batch ${batchId}: its content changed since`,
      `resume without --from (${suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId])}), or order the new file on its own`,
    );
  }

  if (state) {
    o = await batchChoices(f, o, state);
    // A results file this batch did not know: later runs rewrite it too.
    if (o.results !== undefined) await opened?.appendResultsFile(resolve(io.cwd, o.results), new Date(f.clock.now()).toISOString());
  }
  // The file's separator: as read now, else as the batch's first run recorded it.
  const read: { separator?: string } = {};
  const rows = state ? await batchRows(f, state, input, read) : inputRows(input as Input);
  const client = await f.client();
  let totals: Map<string, number> | undefined;
  // What a dry run could not check (a product or the wallets in a shape this version does not read).
  const unchecked: string[] = [];
  let toOrder: number;
  // What a new batch's rows still to order come to, for the production confirmation.
  let cost: { vouchers: number; uncosted: number } | undefined;
  // A new batch of a file: rows already sent by earlier batches are taken over by reference.
  let carry: Carry | undefined;
  let sharing = new Set<string>();
  let known = new Set<string>();
  if (!state) {
    const file = input as Input;
    const dup = await duplicateReferences(file.references, rows);
    if (dup.length > 0) {
      const problems = new Problems();
      for (const p of dup
        .flatMap((d) =>
          d.lines.slice(1).map((line) => ({
            line,
            message: `reference ${JSON.stringify(d.reference)} is also on line ${d.lines[0]}: a reference names one row`,
          })),
        )
        .sort((a, b) => a.line - b.line))
        problems.add(p);
      throw badRows(
        file.name,
        problems,
        'references are row identities',
        'usage',
        "the products, denominations and currencies against the catalog, then the wallets' balances",
      );
    }
    // The batches of this target as this run found them: one started after is seen at startBatch.
    known = new Set(await listBatchIds(config.dir, (h) => h.target === target && h.batch_id !== batchId));
    const damaged: DamagedBatch[] = [];
    const { live: earlier, superseded } = await targetBatches(config.dir, target, batchId, damaged);
    const broken = await damagedOverlap(config.dir, damaged, file, rows, o.newBatch);
    if (broken)
      throw damagedOverlapError(
        file.name,
        broken,
        suggestedCommand(f.globals(), ['orders', 'create', '--resume', broken.batch.header.batch_id]),
      );
    const clash = o.newBatch ? undefined : unmatchedEdit(earlier, file.path, file.name);
    if (clash)
      throw unmatchedEditError(file.name, clash, suggestedCommand(f.globals(), ['orders', 'create', '--resume', clash.header.batch_id]));
    carry = new Carry(earlier, superseded);
    if (earlier.length > 0) sharing = await batchesSharing(config.dir, earlier, file.references, rows);
    // The results files of the batches taken over are this batch's too: none is left as it was.
    o = await batchChoices(
      f,
      o,
      undefined,
      earlier.filter((b) => sharing.has(b.header.batch_id)).flatMap((b) => b.resultsFiles),
    );
    // The catalog and the wallets answer before anything is ordered: a slow server shows here.
    const { startSpinner } = await import('../../core/output/spinner.js');
    const json = o.settings.format === 'json' || o.settings.format === 'ndjson';
    const spinner = await startSpinner(io, `Checking ${file.name} against the catalog and the wallets`, { quiet: json });
    let wallets, readable, walletsTrace;
    try {
      const checked = await preflightRows(f, client, file, rows, carry, o.dryRun);
      totals = checked.totals;
      toOrder = checked.toOrder;
      cost = { vouchers: checked.vouchers, uncosted: checked.uncosted };
      if (checked.unread.length > 0) unchecked.push(`product ${checked.unread.join(', ')} not checked`);
      if (checked.uncosted > 0)
        unchecked.push(
          `${checked.uncosted} row${checked.uncosted === 1 ? '' : 's'} of no known currency not costed (a currency column names it)`,
        );
      ({ wallets, readable, traceId: walletsTrace } = await walletsByCurrency(client, io.signal));
    } finally {
      spinner.stop();
    }
    if (!readable && !o.dryRun && toOrder > 0)
      notice(
        io,
        o.settings,
        'BALANCE_NOT_CHECKED',
        `the wallets are in a shape this version does not read${walletsTrace ? ` (trace ID ${walletsTrace})` : ''}: the batch's cost was not checked against them, so a row the wallet cannot pay is refused (402) as it comes; a resume sends it again once the wallet is topped up`,
      );
    if (!readable && o.dryRun && totals.size > 0)
      unchecked.push('balance not checked: the wallets are in a shape this version does not read');
    const funds = checkFunds(totals, wallets, readable);
    for (const c of funds) {
      if (!c.note) continue;
      if (o.dryRun) unchecked.push(c.note);
      else if (toOrder > 0)
        notice(
          io,
          o.settings,
          'BALANCE_NOT_CHECKED',
          `${c.note}${walletsTrace ? ` (trace ID ${walletsTrace})` : ''}: a row the wallet cannot pay is refused (402) as it comes`,
        );
    }
    const short = funds.filter((c) => !c.sufficient);
    if (short.length > 0) {
      const s = short
        .map(
          (c) =>
            `${formatMoney(c.total, c.currency)} needed, the wallet holds ${c.available === null ? 'nothing' : formatMoney(c.available, c.currency)}`,
        )
        .join('; ');
      const error = new CliError(
        'rejected',
        `the batch costs more than the wallet holds: ${s}; nothing was ordered`,
        'top up the wallet, or split the file: vouchers wallets list',
      );
      throw walletsTrace ? Object.assign(error, { traceId: walletsTrace }) : error;
    }
  } else {
    toOrder = rowCount(state.header) - state.ordered.size;
    // A later run asks with what is left to order, costed by its rows' own currencies (no catalog look-up).
    if (profile.production && toOrder > 0 && !o.yes && !o.dryRun) ({ cost, totals } = await pendingCost(rows, state));
  }
  const total = state ? rowCount(state.header) : (input as Input).rows;

  // A CSV file not separated by commas says how it was read, with --from or --resume alone.
  const seen = input?.separator ?? state?.header.separator ?? read.separator;
  const separator = seen !== undefined && seen !== ',' ? seen : undefined;
  if (o.dryRun) {
    await printRecord(
      io,
      {
        dry_run: true,
        batch_id: batchId,
        ...(separator !== undefined ? { separator } : {}),
        rows: total,
        to_order: toOrder,
        totals: totals ? Object.fromEntries([...totals].map(([c, m]) => [c, fromMinor(m, c)])) : null,
      },
      [
        { label: 'dry_run', value: 'yes: nothing was ordered' },
        { label: 'batch_id', value: batchId },
        ...(separator !== undefined
          ? [{ label: 'separator', value: `${JSON.stringify(separator)} (CSV separated by ${separatorWords(separator)})` }]
          : []),
        { label: 'rows', value: total },
        { label: 'to_order', value: toOrder },
        ...(totals ? [{ label: 'total', value: describeTotals(totals) }] : []),
      ],
      o.settings,
    );
    notice(
      io,
      o.settings,
      'DRY_RUN_PASSED',
      unchecked.length > 0
        ? `Dry run passed the checks it could make (${unchecked.join('; ')}): nothing was ordered.`
        : 'Dry run passed: every row is valid and the wallets cover the batch. Run again without --dry-run to order.',
    );
    return opened;
  }
  if (profile.production && toOrder > 0) {
    await confirmOrStop(io, {
      yes: o.yes,
      question: productionQuestion(profile.name, `order ${toOrder} row${toOrder === 1 ? '' : 's'}${cost ? batchCost(cost, totals) : ''}`),
      reason: productionReason(profile),
    });
  }

  const journal =
    opened ??
    (await startBatch(f, config.dir, input as Input, rows, carry as Carry, sharing, known, o.alsoResults ?? [], {
      batch_id: batchId,
      source: o.from ?? null,
      source_path: (input as Input).path,
      sha256: (input as Input).sha256,
      ...(separator !== undefined ? { separator } : {}),
      target,
      base_url: profile.base_url ?? undefined,
      results_path: o.results === undefined ? undefined : resolve(io.cwd, o.results),
      concurrency: o.concurrency === DEFAULT_CONCURRENCY ? undefined : o.concurrency,
      created_at: new Date(f.clock.now()).toISOString(),
      row_count: total,
    }));
  try {
    // A batch started now orders nothing itself yet: the rows skipped are those of the batches it takes over.
    const tookOver = opened ? [] : [...new Set([...(carry as Carry).from, ...sharing])];
    await finishBatch(f, o, run, journal, rows, total, toOrder, separator, tookOver);
  } finally {
    await journal.close();
  }
  return undefined;
}

async function finishBatch(
  f: Factory,
  o: BulkOptions,
  run: LockedRun,
  journal: BulkJournal,
  rows: () => AsyncIterable<BulkRow>,
  total: number,
  toOrder: number,
  separator: string | undefined,
  tookOver: string[],
): Promise<void> {
  const { io } = f;
  const { batchId } = run;
  const skipped = total - toOrder;
  // How many go at once: never more than there are to send (3 rows were "16 at a time").
  const pace =
    toOrder <= 1
      ? ''
      : toOrder > 1 && toOrder <= (o.concurrency ?? Infinity)
        ? ', all at once'
        : `, ${o.concurrency} at a time${o.carried?.includes('concurrency') ? " (the batch's first run's --concurrency)" : ''}`;
  // With --json each is a JSON notice, as every line on stderr then is.
  notice(
    io,
    o.settings,
    'BATCH_STARTED',
    `Batch ${batchId}: ${total} row${total === 1 ? '' : 's'}${separator !== undefined ? ` (CSV separated by ${separatorWords(separator)})` : ''}, ${skipped > 0 ? `${skipped} already ordered (skipped), ` : ''}${toOrder} to send${pace}${o.results === undefined ? '' : `\n  results ${resolve(io.cwd, o.results)}${o.carried?.includes('results') ? " (the batch's first run's --results)" : o.carried?.includes('taken-over-results') ? ' (the --results of the batch it takes over)' : ''}`}${(o.alsoResults ?? []).map((p) => `\n  results ${p} (an earlier run's, rewritten too)`).join('')}\n  journal ${journal.path}`,
  );
  if (toOrder === 0) {
    notice(
      io,
      o.settings,
      'NOTHING_TO_SEND',
      `Every row of this file was ordered by ${tookOver.length > 0 ? `earlier batch${tookOver.length === 1 ? '' : 'es'} ${tookOver.join(', ')}` : `an earlier run of batch ${batchId}`}: nothing is sent again.\n  To order the same rows once more, make it a new file (e.g. with new references).`,
    );
  }

  // Past a few dozen answers, compiled checks cost less than interpreted ones.
  if (toOrder >= 50) compileAnswerChecks();
  const client = await f.client();
  // Many orders at once: undici's pool starts slower than node:http and sends for less CPU.
  if (toOrder > 1) client.pool?.();
  // A batch is a long job: pacing waits are waited out, however long (the progress line shows them).
  client.waitOutPacing?.();
  // Many rows retried at once say so in a line every 30 s, and the summary counts them.
  const retried = client.countRetries?.();
  const startedAt = new Date(Math.floor(f.clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const progress = startProgress(io, f.clock, total, skipped, client.pacedRate?.('orders'), o.settings);
  let outcome;
  try {
    outcome = await runRows(pendingRows(rows, journal.state), {
      client,
      journal,
      clock: f.clock,
      ids: f.ids,
      signal: io.signal,
      concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
      onResult: (r) => progress.update(r),
    });
  } catch (error) {
    // The journal could not be written (disk full, a file size limit): no row goes out
    // unjournalled, so the batch stops; a row whose line was cut is cut off on the next open.
    if (journal.writeError === undefined || error !== journal.writeError) throw error;
    throw new UsageError(
      `cannot write the journal of batch ${batchId} (${journal.path}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; the run stopped, and no row was sent without its key journalled`,
      `make room (or raise the file size limit), then continue where it stopped (no row is ordered twice): ${run.resumeCmd}`,
      { cause: error },
    );
  } finally {
    progress.done();
    await journal.flushed();
  }
  const state = journal.state;
  // Rows keyed ahead but never sent (Ctrl-C, or the server unreachable): journalled as not sent.
  await journalNotSent(journal, outcome.unsent, new Date(f.clock.now()).toISOString());
  if (outcome.unreadable !== undefined) {
    // The file changed under the run: its rows cannot be read for the results file either.
    const summary = summarize(state, skipped, journal.path, null);
    await printSummary(io, summary, o.settings);
    const e = outcome.unreadable;
    if (!(e instanceof CliError)) throw e;
    throw new UsageError(
      `${e.message}. ${summary.ordered} of ${summary.rows} rows are ordered${o.results !== undefined ? '; the results file was not written (its rows are read from the file)' : ''}`,
      `put the file back as it was and continue the batch (no row is ordered twice): ${run.resumeCmd}; or, once it is written whole, run the new file: rows with a reference already ordered are skipped`,
    );
  }
  await endBatch(f, o, run, journal, rows, skipped, outcome, client, retried && { tally: retried, since: startedAt });
}
