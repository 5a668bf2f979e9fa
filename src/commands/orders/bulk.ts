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
import { batchIdFor, batchTarget, BulkJournal, isBatchId, journalPath, sha256Hex, type BatchState, type BulkRow } from '../../core/journal/bulk.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import { printRecord } from '../../core/output/print.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import type { Factory } from '../../factory.js';
import { parseBulkFile, type RowProblem } from './bulk-input.js';
import { startProgress } from './bulk-progress.js';
import { assertResultsWritable, printSummary, summarize, worstKind, writeResults } from './bulk-report.js';
import { runRows } from './bulk-runner.js';
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
  if (flags.resume !== undefined && !isBatchId(flags.resume)) {
    throw new UsageError(`--resume ${JSON.stringify(flags.resume)} is not a batch id`, 'batch ids look like bat_3f9a0c…; a bulk run prints its id, and re-running the same file resumes it too');
  }
  return {
    from: flags.from, resume: flags.resume, concurrency, results: flags.results,
    yes: Boolean(flags.yes), dryRun: Boolean(flags.dryRun),
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
  if (state && input && state.header.sha256 !== sha256Hex(input.content)) {
    throw new UsageError(`${o.from} is not the file of batch ${batchId}: its content changed since`, `resume without --from (${suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId])}), or order the new file on its own`);
  }

  const client = await f.client();
  const rows = state ? state.header.rows : (parsedRows as BulkRow[]);
  let totals: Map<string, number> | undefined;
  if (!state) {
    totals = await preflightRows(f, client, o.from as string, rows);
    const { wallets, readable } = await walletsByCurrency(client, io.signal);
    const short = checkFunds(totals, wallets, readable).filter((c) => !c.sufficient);
    if (short.length > 0) {
      const s = short.map((c) => `${formatMoney(c.total, c.currency)} needed, the wallet holds ${c.available === null ? 'nothing' : formatMoney(c.available, c.currency)}`).join('; ');
      throw new CliError('rejected', `the batch costs more than the wallet holds: ${s}; nothing was ordered`, 'top up the wallet, or split the file: vouchers wallets list');
    }
  }
  const toOrder = rows.filter((r) => !state?.results.get(r.row)?.ok);

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
    journal = await BulkJournal.create(config.dir, { batch_id: batchId, source: o.from ?? null, sha256: sha256Hex(input!.content), target, base_url: profile.base_url ?? undefined, created_at: new Date(f.clock.now()).toISOString(), rows });
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

  const resume = suggestedCommand(f.globals(), ['orders', 'create', '--resume', batchId]);
  if (outcome.interrupted) {
    throw new CliError('interrupted', `interrupted: ${summary.ordered} of ${summary.rows} rows ordered, ${summary.not_done + summary.failed} left`, `continue where it stopped (no row is ordered twice): ${resume}`);
  }
  if (summary.failed > 0 || summary.not_done > 0) {
    const kind = worstKind(journal.state) ?? 'unexpected';
    throw new CliError(kind, `${summary.failed + summary.not_done} of ${summary.rows} rows were not ordered (see the lines above${resultsPath ? ` and ${resultsPath}` : ''})`, `fix the cause, then retry them with their same keys: ${resume}`);
  }
  err(io, `All ${summary.rows} rows ordered.\n`);
}
