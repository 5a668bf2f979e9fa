/**
 * `orders create --from FILE` / `--resume BATCH_ID`: a bulk order. Every row is checked
 * (contract, then catalog and balance) before the first order; the batch id comes from the
 * file's content, so running the same file again continues the same batch; the journal
 * makes sure no row is ever ordered twice.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { formatMoney, fromMinor, toMinor } from '../../contract/money-format.js';
import { configLocation } from '../../core/config/location.js';
import { CliError, UsageError } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { err } from '../../core/io/io.js';
import { BatchLock, BatchLocked } from '../../core/journal/batch-lock.js';
import { appendSuperseded, batchIdFor, batchTarget, BulkJournal, isBatchId, journalPath, repairTornTail, rowOutcome, sha256Hex, type BatchState, type BulkRow } from '../../core/journal/bulk.js';
import { carryOver, duplicateReferences, liveBatches, unmatchedEdit, unmatchedEditError, type Carried } from './bulk-identity.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import { printRecord } from '../../core/output/print.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import type { Factory } from '../../factory.js';
import { parseBulkFile, type RowProblem } from './bulk-input.js';
import { startProgress } from './bulk-progress.js';
import { assertResultsWritable, printSummary, summarize, worstKind, writeResults } from './bulk-report.js';
import { NOT_RESENT, runRows } from './bulk-runner.js';
import { confirmOrStop } from './confirm.js';
import type { CreateFlags } from './create.js';
import { parseCount } from './order-input.js';
import { checkFunds, itemProblem, lookupProducts, walletsByCurrency } from './preflight.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;

const SINGLE_ONLY = ['product', 'denomination', 'quantity', 'currency', 'reference', 'idempotencyKey', 'wait', 'reveal', 'codesOut'] as const;
const FLAG_NAMES: Record<(typeof SINGLE_ONLY)[number], string> = {
  product: '--product', denomination: '--denomination', quantity: '--quantity', currency: '--currency', reference: '--reference',
  idempotencyKey: '--idempotency-key', wait: '--wait', reveal: '--reveal', codesOut: '--codes-out',
};

export interface BulkOptions {
  from?: string;
  resume?: string;
  concurrency: number;
  results?: string;
  yes: boolean;
  dryRun: boolean;
  /** Order an edited file whose rows lack references as a new batch, on purpose. */
  newBatch: boolean;
  settings: OutputSettings;
}

export function buildBulk(f: Factory, flags: CreateFlags): BulkOptions {
  const clash = SINGLE_ONLY.filter((k) => flags[k] !== undefined && flags[k] !== false);
  if (clash.length > 0 || (flags.item ?? []).length > 0) {
    const names = [...clash.map((k) => FLAG_NAMES[k]), ...((flags.item ?? []).length > 0 ? ['--item'] : [])];
    throw new UsageError(`${names.join(', ')} cannot be combined with a bulk order (--from/--resume)`, 'put product_id, denomination, quantity, reference and currency in the file\'s columns; each row gets its own idempotency key');
  }
  let concurrency = DEFAULT_CONCURRENCY;
  if (flags.concurrency !== undefined) {
    const n = parseCount(flags.concurrency);
    if (n === undefined || n < 1 || n > MAX_CONCURRENCY) throw new UsageError(`--concurrency ${JSON.stringify(flags.concurrency)} is not a worker count`, `use a whole number from 1 to ${MAX_CONCURRENCY}`);
    concurrency = n;
  }
  if (flags.newBatch && flags.from === undefined) throw new UsageError('--new-batch only applies to a file (--from FILE)');
  if (flags.resume !== undefined && !isBatchId(flags.resume)) {
    throw new UsageError(`--resume ${JSON.stringify(flags.resume)} is not a batch id`, 'batch ids look like bat_3f9a0c…; a bulk run prints its id, and re-running the same file resumes it too');
  }
  return {
    from: flags.from, resume: flags.resume, concurrency, results: flags.results,
    yes: Boolean(flags.yes), dryRun: Boolean(flags.dryRun), newBatch: Boolean(flags.newBatch),
    settings: resolveOutput(f.io, flags, f.globals().color !== false),
  };
}

function badRows(file: string, problems: RowProblem[], what: string): UsageError {
  const shown = problems.slice(0, 50).map((p) => `line ${p.line}: ${p.message}`);
  if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more`);
  const lines = new Set(problems.map((p) => p.line)).size;
  return new UsageError(`${file}: ${lines} bad row${lines === 1 ? '' : 's'} (${what}); nothing was ordered\n  ${shown.join('\n  ')}`, 'fix the lines named above and run the same command again');
}

async function readInput(f: Factory, file: string): Promise<{ path: string; content: string }> {
  const path = isAbsolute(file) ? file : resolve(f.io.cwd, file);
  try {
    return { path, content: await readFile(path, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}`, 'give the path of a CSV (with a header) or NDJSON file');
  }
}

/** Catalog and balance checks of a new batch; every bad row by line number. */
async function preflightRows(f: Factory, client: ApiClient, file: string, rows: BulkRow[]): Promise<Map<string, number>> {
  const lookups = await lookupProducts(client, rows.map((r) => r.product_id), f.io.signal);
  const problems: RowProblem[] = [];
  const totals = new Map<string, number>();
  for (const row of rows) {
    const problem = itemProblem(row, lookups, row.currency);
    if (problem) { problems.push({ line: row.row, message: problem }); continue; }
    const found = lookups.get(row.product_id);
    const currency = row.currency ?? (found && 'product' in found ? found.product.currency : undefined);
    if (!currency) continue;
    totals.set(currency, (totals.get(currency) ?? 0) + toMinor(row.denomination, currency) * row.quantity);
  }
  if (problems.length > 0) throw badRows(file, problems, 'checked against the catalog');
  return totals;
}

function describeTotals(totals: Map<string, number>): string {
  return [...totals].map(([c, m]) => formatMoney(fromMinor(m, c), c)).join(' + ');
}

export async function run(f: Factory, flags: CreateFlags): Promise<void> {
  const { io } = f;
  const o = buildBulk(f, flags);
  let input: { path: string; content: string } | undefined;
  let parsedRows: BulkRow[] | undefined;
  if (o.from !== undefined) {
    input = await readInput(f, o.from);
    const parsed = parseBulkFile(input.path, input.content);
    if (parsed.problems.length > 0) throw badRows(o.from, parsed.problems, 'checked against the contract');
    if (parsed.rows.length === 0) throw new UsageError(`${o.from} holds no rows`, `a CSV needs a header (product_id,denomination,quantity,reference,currency) and at least one row`);
    parsedRows = parsed.rows;
  }
  if (o.results !== undefined) await assertResultsWritable(o.results, io.cwd);
  // The config directory only: opening the config store would load conf, whose exit hook
  // re-raises Ctrl-C and would cut the clean stop below short.
  const config = { dir: configLocation(io.env).dir };
  const profile = await f.profile();
  const target = batchTarget(profile.base_url ?? '', profile.api_key ?? '');
  const batchId = o.resume ?? batchIdFor(input!.content, target);
  const resumeCmd = suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId]);
  // One run per batch: a second run of the same file (or --resume) beside this one is
  // refused before it reads the journal. A dry run orders nothing and takes no lock.
  let lock: BatchLock | undefined;
  if (!o.dryRun) lock = await takeLock(io, config.dir, batchId, resumeCmd);
  try {
    await runLocked(f, o, { input, parsedRows, configDir: config.dir, profile, target, batchId, resumeCmd });
  } finally {
    await lock?.release();
  }
}

async function takeLock(io: Factory['io'], configDir: string, batchId: string, resumeCmd: string): Promise<BatchLock> {
  let lock: BatchLock;
  try {
    lock = await BatchLock.acquire(configDir, batchId);
  } catch (e) {
    if (!(e instanceof BatchLocked)) throw e;
    const who = e.holder ? `pid ${e.holder.pid} on host ${e.holder.host} (since ${e.holder.started_at})` : 'another run (its lock file could not be read)';
    throw new CliError('usage', `batch ${batchId} is being run by ${who}: this run ordered nothing`,
      `wait for that run to end, then run ${resumeCmd} for any row left; if no such run exists (e.g. it ran on another host and died), remove ${e.path}`);
  }
  if (lock.recovered) {
    err(io, `Batch ${batchId}: took over the lock of pid ${lock.recovered.pid} on ${lock.recovered.host}, which is no longer running.\n`);
  }
  return lock;
}

/**
 * Create the journal of a new batch with what it takes over from earlier batches (by
 * reference), holding their locks: a run of an earlier batch is refused meanwhile, and
 * once the new journal exists they are marked superseded, so they are never run again.
 */
async function startBatch(f: Factory, configDir: string, carried: Carried, header: Parameters<typeof BulkJournal.create>[1]): Promise<BulkJournal> {
  const locks: BatchLock[] = [];
  try {
    for (const id of carried.from) {
      try {
        locks.push(await BatchLock.acquire(configDir, id));
      } catch (e) {
        if (!(e instanceof BatchLocked)) throw e;
        throw new CliError('usage', `rows of this file (by reference) belong to batch ${id}, which is being run by ${e.holder ? `pid ${e.holder.pid} on host ${e.holder.host}` : 'another run'}: this run ordered nothing`, 'wait for that run to end, then run this file again');
      }
    }
    // Under the locks: what the earlier batches hold now (a run may have ended meanwhile).
    let fresh = carried;
    if (carried.from.length > 0) {
      const earlier = await liveBatches(configDir, header.target ?? '', header.batch_id);
      fresh = carryOver(earlier, header.rows);
      if (fresh.from.some((id) => !carried.from.includes(id)) || [...fresh.ordered].some((r) => !carried.ordered.has(r))) {
        throw new CliError('usage', `earlier batches with this file's references changed while this run started: nothing was ordered`, 'run the same command again');
      }
    }
    const journal = await BulkJournal.create(configDir, header, fresh.records);
    for (const id of fresh.from) await appendSuperseded(configDir, id, header.batch_id, new Date(f.clock.now()).toISOString());
    if (fresh.from.length > 0) {
      err(f.io, `Batch ${header.batch_id} takes over, by reference, the rows of earlier batch${fresh.from.length === 1 ? '' : 'es'} ${fresh.from.join(', ')} (no longer run on their own).\n`);
    }
    return journal;
  } finally {
    for (const l of locks) await l.release();
  }
}

interface LockedRun {
  input: { path: string; content: string } | undefined;
  parsedRows: BulkRow[] | undefined;
  configDir: string;
  profile: Awaited<ReturnType<Factory['profile']>>;
  target: string;
  batchId: string;
  resumeCmd: string;
}

async function runLocked(f: Factory, o: BulkOptions, run: LockedRun): Promise<void> {
  const { io } = f;
  const { input, parsedRows, profile, target, batchId } = run;
  const config = { dir: run.configDir };
  if (!o.dryRun) {
    // A crash mid-write leaves a torn last line: cut it off so the next append starts cleanly.
    const cut = await repairTornTail(journalPath(config.dir, batchId)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return 0;
      throw e;
    });
    if (cut > 0) err(io, `Batch ${batchId}: the journal's last line was cut off by a crash (${cut} byte${cut === 1 ? '' : 's'}); removed it, everything before it is kept.\n`);
  }
  let state: BatchState | undefined = await BulkJournal.read(config.dir, batchId).catch((e: Error) => {
    throw new UsageError(`the journal of batch ${batchId} is damaged: ${e.message}`, 'move the file away to start the batch afresh (rows already ordered would then be ordered again)');
  });
  if (o.resume !== undefined && !state) {
    throw new UsageError(`no batch ${batchId} in ${journalPath(config.dir, batchId).replace(/\/[^/]+$/, '')}`, 'check the id printed by the first run, or run the original file again with --from');
  }
  if (state?.header.target !== undefined && state.header.target !== target) {
    throw new UsageError(`batch ${batchId} orders through ${state.header.base_url ?? 'another server'} with another API key or server than profile ${profile.name} (${profile.base_url ?? 'no base URL'})`,
      'resume it with the profile it was started with (--profile NAME); to order the same file on this server, run it with --from');
  }
  if (state?.superseded_by !== undefined) {
    throw new UsageError(`batch ${batchId} was taken over by batch ${state.superseded_by} (an edited file with the same references): it is not run again, so no row is ordered twice`,
      `continue the edited file (run it again with --from), or ${suggestedCommand(f.globals(), ['orders', 'create', '--resume', state.superseded_by])}`);
  }
  if (state && input && state.header.sha256 !== sha256Hex(input.content)) {
    throw new UsageError(`${o.from} is not the file of batch ${batchId}: its content changed since`, `resume without --from (${suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId])}), or order the new file on its own`);
  }

  const client = await f.client();
  const rows = state ? state.header.rows : (parsedRows as BulkRow[]);
  let totals: Map<string, number> | undefined;
  // A new batch of a file: rows already sent by earlier batches are taken over by reference.
  let carried: Carried | undefined;
  if (!state) {
    const dup = duplicateReferences(rows);
    if (dup.length > 0) {
      throw badRows(o.from as string, dup.flatMap((d) => d.lines.slice(1).map((line) => ({ line, message: `reference ${JSON.stringify(d.reference)} is also on line ${d.lines[0]}: a reference names one row` }))), 'references are row identities');
    }
    const earlier = await liveBatches(config.dir, target, batchId);
    const clash = o.newBatch ? undefined : unmatchedEdit(earlier, input!.path, o.from as string, rows);
    if (clash) throw unmatchedEditError(o.from as string, clash, suggestedCommand(f.globals(), ['orders', 'create', '--resume', clash.header.batch_id]));
    carried = carryOver(earlier, rows);
  }
  if (!state) {
    totals = await preflightRows(f, client, o.from as string, rows.filter((r) => !carried?.ordered.has(r.row)));
    const { wallets, readable } = await walletsByCurrency(client, io.signal);
    const short = checkFunds(totals, wallets, readable).filter((c) => !c.sufficient);
    if (short.length > 0) {
      const s = short.map((c) => `${formatMoney(c.total, c.currency)} needed, the wallet holds ${c.available === null ? 'nothing' : formatMoney(c.available, c.currency)}`).join('; ');
      throw new CliError('rejected', `the batch costs more than the wallet holds: ${s}; nothing was ordered`, 'top up the wallet, or split the file: vouchers wallets list');
    }
  }
  const toOrder = rows.filter((r) => (state ? rowOutcome(state, r.row) !== 'ordered' : !carried?.ordered.has(r.row)));

  if (o.dryRun) {
    await printRecord(io, { dry_run: true, batch_id: batchId, rows: rows.length, to_order: toOrder.length, totals: totals ? Object.fromEntries([...totals].map(([c, m]) => [c, fromMinor(m, c)])) : null }, [
      { label: 'dry_run', value: 'yes: nothing was ordered' },
      { label: 'batch_id', value: batchId },
      { label: 'rows', value: rows.length },
      { label: 'to_order', value: toOrder.length },
      ...(totals ? [{ label: 'total', value: describeTotals(totals) }] : []),
    ], o.settings);
    err(io, 'Dry run passed: every row is valid and the wallets cover the batch. Run again without --dry-run to order.\n');
    return;
  }
  if (profile.production && toOrder.length > 0) {
    await confirmOrStop(io, {
      yes: o.yes,
      question: `Profile ${profile.name} is PRODUCTION: order ${toOrder.length} row${toOrder.length === 1 ? '' : 's'}${totals ? ` (${describeTotals(totals)})` : ''} for real?`,
      reason: `profile ${profile.name} is marked production`,
    });
  }

  let journal: BulkJournal;
  if (state) {
    journal = (await BulkJournal.open(config.dir, batchId)) as BulkJournal;
  } else {
    journal = await startBatch(f, config.dir, carried as Carried, {
      batch_id: batchId, source: o.from ?? null, source_path: input!.path, sha256: sha256Hex(input!.content), target, base_url: profile.base_url ?? undefined, created_at: new Date(f.clock.now()).toISOString(), rows,
    });
  }
  const skipped = rows.length - toOrder.length;
  err(io, `Batch ${batchId}: ${rows.length} rows, ${skipped > 0 ? `${skipped} already ordered (skipped), ` : ''}${toOrder.length} to send, ${o.concurrency} at a time\n  journal ${journal.path}\n`);
  if (toOrder.length === 0) {
    err(io, `Every row of this file was ordered by an earlier run of batch ${batchId}: nothing is sent again.\n  To order the same rows once more, make it a new file (e.g. with new references).\n`);
  }

  const progress = startProgress(io, f.clock, rows.length, skipped);
  let outcome;
  try {
    outcome = await runRows(toOrder, { client, journal, clock: f.clock, ids: f.ids, signal: io.signal, concurrency: o.concurrency, onResult: (r) => progress.update(r) });
  } finally {
    progress.done();
    await journal.close();
  }
  const resultsPath = o.results !== undefined ? await writeResults(o.results, io.cwd, journal.state) : null;
  const summary = summarize(journal.state, skipped, journal.path, resultsPath);
  await printSummary(io, summary, o.settings);

  const resume = run.resumeCmd;
  if (outcome.interrupted) {
    throw new CliError('interrupted', `interrupted: ${summary.ordered} of ${summary.rows} rows ordered, ${summary.not_done + summary.failed + summary.unknown} left`, `continue where it stopped (no row is ordered twice): ${resume}`);
  }
  if (summary.failed > 0 || summary.not_done > 0 || summary.unknown > 0) {
    const kind = worstKind(journal.state) ?? 'unexpected';
    const parts: string[] = [];
    if (summary.failed > 0) parts.push(`${summary.failed} of ${summary.rows} rows were not ordered (refused by the server)`);
    const held = journal.state.header.rows.filter((r) => rowOutcome(journal.state, r.row) === 'unknown' && journal.state.results.get(r.row)?.error_code === NOT_RESENT).length;
    const open = summary.unknown + summary.not_done - held;
    if (open > 0) parts.push(`${open} of ${summary.rows} rows unknown: resume to find out (the answer was lost or not final; the order may exist)`);
    if (held > 0) parts.push(`${held} of ${summary.rows} rows not re-sent: their answer was lost and the server's 24 h idempotency window has passed, so a re-send could order twice`);
    const hints: string[] = [];
    if (summary.failed > 0) hints.push('fix the cause of the refused rows, then resume: they are sent again with fresh keys');
    if (open > 0) hints.push(`${summary.failed > 0 ? 'rows' : 'resume: rows'} of unknown outcome are re-sent with their same keys, so the server answers with the order if it exists`);
    if (held > 0) hints.push('check each row not re-sent as its line above says (vouchers orders list --reference REF, or ask the provider)');
    throw new CliError(kind, `${parts.join('; ')} (see the lines above${resultsPath ? ` and ${resultsPath}` : ''})`, `${hints.join('; ')}: ${resume}`);
  }
  err(io, `All ${summary.rows} rows ordered.\n`);
}
