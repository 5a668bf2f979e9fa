/**
 * What `--all` (and `api --paginate`) say about a server that pages otherwise than by our
 * `has_more`/`next_cursor` (core/http/paging.ts): the notice naming what was followed, and
 * the error when the list says more follows but names no way to ask for it (the user asked
 * for all: an incomplete list is not a success).
 */
import { CliError, InterruptedError } from '../errors/index.js';
import { spinnerMode, type IO } from '../io/io.js';
import { notice } from './notice.js';
import type { OutputSettings } from './options.js';

/** `--all: … followed "pagination.next_cursor" (sent as cursor) to each next page (3 pages)`. */
/**
 * What `--all` shows on stderr while its pages come: a spinner on a terminal (not when rows
 * stream to the same terminal: tables are printed at the end), and after it the count
 * (`countLine`), or the outcome of a stopped run. With JSON or NDJSON, stderr holds JSON
 * lines only: an animated spinner (drawn, then erased) and nothing left after it.
 */
export function allProgress(io: IO, settings: Pick<OutputSettings, 'format'>): { spinnerQuiet: boolean; countLine: boolean } {
  const show = io.stderrIsTTY && (!io.stdoutIsTTY || settings.format === 'table');
  const machine = settings.format === 'json' || settings.format === 'ndjson';
  return { spinnerQuiet: !show || (machine && spinnerMode(io) !== 'animated'), countLine: show && !machine };
}

export function followedMessage(flag: string, via: string, pages: number): string {
  return `${flag}: the server names its next page otherwise than has_more/next_cursor: followed ${via} to each next page (${pages} page${pages === 1 ? '' : 's'})`;
}

/** The list said more follows, and nothing to follow: stopped with what was fetched, with the trace ID of the page that said so. */
export function unfollowableError(flag: string, fetched: string, path: string, traceId: string | undefined): CliError {
  const error = new CliError(
    'pending',
    `${flag}: the server's list says more follows, but names no cursor, next link or page this version can follow: stopped after ${fetched}, the rest not fetched`,
    `see how the server pages with: vouchers api --raw GET ${path}; ask the provider which parameter carries the next page`,
  );
  return traceId ? Object.assign(error, { traceId }) : error;
}

/** How a list read whole went (a catalog list, which has no --all): see api/catalog.ts's allPages. */
export interface PagesRead {
  pages: number;
  via?: string;
  unfollowable?: { traceId: string | undefined };
  loop?: Error;
}

/**
 * After the rows of a list read page after page were printed: the notice naming what was
 * followed, if another way than ours; then, when the list stopped before its end, the error
 * (exit 8) saying so, never a cut list with exit 0.
 */
export function endOfPages(
  io: IO,
  settings: Pick<OutputSettings, 'format'>,
  command: string,
  read: PagesRead,
  fetched: string,
  path: string,
): void {
  if (read.via) notice(io, settings, 'PAGES_FOLLOWED', followedMessage(command, read.via, read.pages));
  if (read.loop) throw read.loop;
  if (read.unfollowable)
    throw unfollowableError(command, `${fetched} (${read.pages} page${read.pages === 1 ? '' : 's'})`, path, read.unfollowable.traceId);
}

/**
 * Ctrl-C (or SIGTERM) while a list was read page after page (`--all`, `--paginate`): the
 * rows that came stay printed, and the error says how far the list got (`read`: "12 orders
 * (6 pages)"). Its trace ID is the one of the request it stopped, when one had been sent,
 * else of the last page answered (`lastTrace`), which the message names too: what support
 * asks for. Any other error, or one of a run not interrupted, is returned as it is.
 */
export function pagesInterrupted(error: unknown, signal: AbortSignal, read: string, lastTrace: string | undefined): unknown {
  if (!signal.aborted || (error instanceof CliError && !(error instanceof InterruptedError))) return error;
  const stopped = error instanceof InterruptedError ? error : undefined;
  const reason: unknown = signal.reason;
  const why =
    stopped && stopped.message !== 'interrupted' ? stopped.message : reason instanceof InterruptedError ? reason.message : 'interrupted';
  const last = lastTrace ? `; the last page answered had trace ID ${lastTrace}` : '; no page was answered';
  return new InterruptedError(`${why}: stopped after ${read}${last}`, stopped?.hint, stopped?.traceId ?? lastTrace);
}

/**
 * An error that ends a list read page after page (`flag`: `--all`, `--paginate`): Ctrl-C as
 * pagesInterrupted says; any other (a 5xx on page 7) stays the error it is, with its exit
 * code, and when some pages came stderr says first how far the list got (`read`), unless the
 * spinner's last line (`said`) already did. The rows that came stay printed (a JSON array left open).
 */
export function pagesStopped(
  io: IO,
  settings: Pick<OutputSettings, 'format'>,
  error: unknown,
  progress: { flag: '--all' | '--paginate'; pages: number; read: string; lastTrace: string | undefined; said: boolean },
): unknown {
  const stopped = pagesInterrupted(error, io.signal, progress.read, progress.lastTrace);
  if (stopped === error && progress.pages > 0 && !progress.said)
    notice(io, settings, 'LIST_STOPPED', `${progress.flag}: stopped after ${progress.read}; the rest was not fetched`);
  return stopped;
}
