/**
 * The flags of a bulk order (`orders create --from FILE` / `--resume BATCH_ID`) as its
 * options: the single-order flags it cannot take, the worker count, the batch id. Light:
 * checked before the bulk machinery (bulk.ts) loads.
 */
import { UsageError } from '../../core/errors/index.js';
import { isBatchId } from '../../core/journal/bulk.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { CreateFlags } from './index.js';
import { parseCount } from './order-input.js';
import { parseDuration } from '../../core/http/duration.js';
import { DEFAULT_WAIT_MS } from './index.js';

/**
 * Orders in flight at once. 16: on the bench (limits lifted, `npm run bench -- bulk`) it ran
 * at 0.93-0.95x the best of a sweep up to 32, where 8 ran at 0.83x. Under the documented
 * limits the pacer, not this, sets the pace.
 */
export const DEFAULT_CONCURRENCY = 16;
export const MAX_CONCURRENCY = 32;

const SINGLE_ONLY = ['product', 'denomination', 'quantity', 'currency', 'reference', 'idempotencyKey', 'reveal', 'codesOut'] as const;
const FLAG_NAMES: Record<(typeof SINGLE_ONLY)[number], string> = {
  product: '--product',
  denomination: '--denomination',
  quantity: '--quantity',
  currency: '--currency',
  reference: '--reference',
  idempotencyKey: '--idempotency-key',
  reveal: '--reveal',
  codesOut: '--codes-out',
};

export interface BulkOptions {
  from?: string;
  resume?: string;
  /** Orders in flight at once: the flag's, else the batch's first run's, else DEFAULT_CONCURRENCY. */
  concurrency?: number;
  results?: string;
  /** Results files of earlier runs (absolute) this run rewrites beside `results` (batchChoices). */
  alsoResults?: string[];
  yes: boolean;
  dryRun: boolean;
  /** Order an edited file whose rows lack references as a new batch, on purpose. */
  newBatch: boolean;
  settings: OutputSettings;
  /** --wait: once every row was sent, follow the orders not final yet for up to `waitMs`. */
  wait: boolean;
  waitMs: number;
  /**
   * What was taken from the batch's first run (its flags were not given), or the results file
   * of an earlier batch a new one takes over, for the run's first line.
   */
  carried?: ('concurrency' | 'results' | 'taken-over-results')[];
}

export async function buildBulk(f: Factory, flags: CreateFlags): Promise<BulkOptions> {
  const clash = SINGLE_ONLY.filter((k) => flags[k] !== undefined);
  if (clash.length > 0 || (flags.item ?? []).length > 0) {
    const names = [...clash.map((k) => FLAG_NAMES[k]), ...((flags.item ?? []).length > 0 ? ['--item'] : [])];
    const rowFields = clash.some((k) => k !== 'reveal' && k !== 'codesOut') || names.includes('--item');
    const afterwards = clash.some((k) => k === 'reveal' || k === 'codesOut');
    const hints = [
      ...(rowFields
        ? ["put product_id, denomination, quantity, reference and currency in the file's columns; each row gets its own idempotency key"]
        : []),
      ...(afterwards
        ? [
            'a bulk run does not fetch codes: --wait follows its orders to a final status; write the order ids with --results FILE, then per order use vouchers orders codes ID',
          ]
        : []),
    ];
    throw new UsageError(`${names.join(', ')} cannot be combined with a bulk order (--from/--resume)`, hints.join('; '));
  }
  let concurrency: number | undefined;
  if (flags.concurrency !== undefined) {
    const n = parseCount(flags.concurrency);
    if (n === undefined || n < 1 || n > MAX_CONCURRENCY)
      throw new UsageError(
        `--concurrency ${JSON.stringify(flags.concurrency)} is not a worker count`,
        `use a whole number from 1 to ${MAX_CONCURRENCY}`,
      );
    concurrency = n;
  }
  if (flags.newBatch && flags.from === undefined) throw new UsageError('--new-batch only applies to a file (--from FILE)');
  if (flags.waitTimeout !== undefined && !flags.wait)
    throw new UsageError('--wait-timeout is how long --wait follows the orders', 'add --wait; --timeout is the timeout of each request');
  // As for one order: --wait-timeout, else the global --timeout as before, else the default.
  const wanted = flags.wait
    ? (await import('./follow.js')).waitTimeoutFlag(f.io, flags, f.globals().timeout, f.globals().json === true)
    : undefined;
  if (flags.resume !== undefined && !isBatchId(flags.resume)) {
    throw new UsageError(
      `--resume ${JSON.stringify(flags.resume)} is not a batch id`,
      'batch ids look like bat_3f9a0c…; a bulk run prints its id, and re-running the same file resumes it too',
    );
  }
  return {
    from: flags.from,
    resume: flags.resume,
    concurrency,
    results: flags.results,
    yes: Boolean(flags.yes),
    dryRun: Boolean(flags.dryRun),
    newBatch: Boolean(flags.newBatch),
    settings: resolveOutput(f.io, flags, f.globals().color !== false),
    wait: Boolean(flags.wait),
    waitMs: wanted !== undefined ? parseDuration(wanted.text, wanted.flag) : DEFAULT_WAIT_MS,
  };
}
