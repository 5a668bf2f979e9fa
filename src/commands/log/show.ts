/** `vouchers log`: print the request log (table on a TTY, TSV piped, JSON/NDJSON/CSV). */
import { CliError, OutputClosed, UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { isFailed } from '../../core/journal/request-log-merge.js';
import { ambiguousTraces, logFilter, ofExactTrace } from './filters.js';
import type { RequestLogEntry } from '../../core/journal/types.js';
import { resolveOutput } from '../../core/output/options.js';
import { formatTime } from '../../core/output/format.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import type { LogOptions } from './index.js';
import { answerNote, isUnseen, unansweredNotes, withAdvice } from './unanswered.js';

export type { LogOptions };

/**
 * The request path, its status and the trace ID (what support needs) are always shown,
 * whole. On a narrow terminal the others are left out (and said so on stderr): the attempt
 * number first, then the duration, the error code, the method and the time last, what tells
 * a request apart; an error code that most rows shown lack goes before any (logColumns).
 * When the three kept columns do not fit even so, the table becomes one block a row.
 */
export const LOG_COLUMNS: Column<RequestLogEntry>[] = [
  { field: 'time', header: 'TIME', get: (e) => formatTime(e.time), priority: 4 },
  { field: 'profile', header: 'PROFILE', wide: true },
  { field: 'method', header: 'METHOD', priority: 3 },
  { field: 'path', header: 'PATH', shrink: false },
  {
    field: 'status',
    header: 'STATUS',
    get: (e) => e.status ?? '-',
    style: (t, c, e) => (isFailed(e) ? c.red(t) : c.green(t)),
    align: 'right',
  },
  { field: 'duration_ms', header: 'MS', align: 'right', priority: 1 },
  { field: 'attempt', header: 'TRY', align: 'right', priority: 0 },
  { field: 'trace_id', header: 'TRACE ID', shrink: false },
  { field: 'idempotency_key', header: 'IDEMPOTENCY KEY', wide: true },
  // A keyed write logged as sent whose answer never came, or came and was never shown, says so
  // here (and on stderr, with its key).
  { field: 'error_code', header: 'ERROR', get: answerNote, priority: 2 },
  // What a write's answer named (appended: piped output keeps the earlier columns where they
  // were). On a terminal only when a row shown has one, and left out first when narrow.
  { field: 'order_id', header: 'ORDER ID', get: (e) => e.order_id ?? '', shrink: false, priority: -2 },
  { field: 'payout_id', header: 'PAYOUT ID', get: (e) => e.payout_id ?? '', shrink: false, priority: -2 },
  { field: 'reference', header: 'REFERENCE', get: (e) => e.reference ?? '', wide: true },
];

/** The id columns that no row shown fills, left out of a terminal's table (they stay in every other format). */
const ANSWER_IDS = ['order_id', 'payout_id'] as const;

/**
 * The columns for these rows: a failed request is looked at for why it failed, so with
 * --failed or --error its error code is never left out (for one without an answer, status
 * "-", it is the only reason the table gives); an error code that most rows lack is left
 * out first, before the columns that have something on each row.
 */
function logColumns(rows: RequestLogEntry[], keepError: boolean, table: boolean): Column<RequestLogEntry>[] {
  const noted = rows.filter((e) => answerNote(e) !== null).length;
  const priority = keepError ? undefined : noted * 2 < rows.length ? -1 : 2;
  const empty = new Set(table ? ANSWER_IDS.filter((k) => !rows.some((e) => e[k] !== undefined)) : []);
  return LOG_COLUMNS.filter((c) => !empty.has(c.field as (typeof ANSWER_IDS)[number])).map((c) =>
    c.field === 'error_code' ? { ...c, priority } : c,
  );
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 50;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new UsageError(`--limit ${JSON.stringify(value)} is not a positive whole number`, 'e.g. --limit 20');
  return Number(value);
}

export async function run(f: Factory, opts: LogOptions): Promise<void> {
  const limit = parseLimit(opts.limit);
  // A --profile given shows that profile's requests; without it, every profile's.
  const now = f.clock.now();
  const where = logFilter({ ...opts, profile: f.globals().profile }, now);
  const settings = resolveOutput(f.io, opts, f.globals().color !== false);
  if (
    await handleFieldsFlag(
      f.io,
      settings,
      LOG_COLUMNS.map((c) => c.field),
    )
  )
    return;
  const log = await f.requestLog();
  const only = opts.unanswered ? (e: RequestLogEntry) => isUnseen(e) && (!where || where(e)) : where;
  const entries = ofExactTrace(
    await log.read({
      failedOnly: Boolean(opts.failed),
      where: only,
      limit: only && opts.trace !== undefined ? undefined : limit,
    }),
    opts.trace,
  );
  const traces = ambiguousTraces(entries, opts.trace);
  if (traces.length > 0) {
    throw new UsageError(
      `--trace ${opts.trace} matches ${traces.length} different trace IDs`,
      `give more of the ID, e.g. --trace ${traces[0]}${traces.length > 1 ? ` (the others: ${traces.slice(1, 4).join(', ')}${traces.length > 4 ? ', …' : ''})` : ''}`,
    );
  }
  if (opts.trace !== undefined && entries.length === 0) throw traceNotFound(opts, log.path, f.globals().profile);
  const profile = f.globals().profile;
  const empty = where
    ? profile !== undefined
      ? `No logged request of profile ${JSON.stringify(profile)}${where === undefined || !logFilter(opts, now) ? '' : ' matches these filters'} (without --profile, every profile's are shown).`
      : 'No logged request matches these filters.'
    : opts.unanswered
      ? 'No keyed write without its answer logged, and none answered but not shown.'
      : opts.failed
        ? 'No failed requests logged.'
        : 'No requests logged yet.';
  const shown = entries.slice(-limit);
  const columns = logColumns(
    shown,
    Boolean(opts.failed) || opts.error !== undefined,
    settings.format === 'table' && settings.fields === undefined,
  );
  await printList(f.io, shown.map(withAdvice(now)), columns, settings, { empty });
  // JSON carries each one's retry and look_first; other formats get them on stderr, unless
  // nobody reads the output any more (`| head -1`): the command then ends without a word.
  if (settings.format !== 'json' && settings.format !== 'ndjson' && !(f.io.signal.reason instanceof OutputClosed)) {
    const notes = unansweredNotes(shown, now);
    if (notes) err(f.io, notes);
  }
}

/**
 * A trace ID support quoted that the log does not hold: said on stderr with the file
 * searched and what never goes into it (exit 4, not found), never a silent empty list.
 */
function traceNotFound(opts: LogOptions, path: string, profile: string | undefined): CliError {
  const narrowed = ['status', 'error', 'method', 'path', 'order', 'payout', 'since', 'until'].filter(
    (k) => opts[k as keyof LogOptions] !== undefined,
  );
  if (profile !== undefined) narrowed.push('profile');
  if (opts.unanswered) narrowed.unshift('unanswered');
  if (opts.failed) narrowed.unshift('failed');
  const others = narrowed.length > 0 ? ` and ${narrowed.map((k) => `--${k}`).join(', ')}` : '';
  return new CliError(
    'not_found',
    `no logged request matches trace ID ${opts.trace}${others} (searched ${path || 'the request log'})`,
    `${others ? `leave out ${narrowed.map((k) => `--${k}`).join(', ')} to search by the trace ID alone; ` : ''}` +
      "the log holds the API requests of this machine's commands; the sandbox operator calls (vouchers sandbox admin …) and certify --sandbox runs are not logged (a certify report lists its trace IDs), nor are commands run with another VOUCHERS_CONFIG_DIR",
  );
}
