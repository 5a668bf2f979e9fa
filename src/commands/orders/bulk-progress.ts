/**
 * The live progress lines of a bulk run on a TTY stderr: while it orders, done/total, rate,
 * ETA, failures; while it follows the orders not final yet (--wait), how many are final.
 * Redrawn at most every 100 ms; failures are printed as their own lines (TTY or not).
 */
import { formatDuration } from '../../core/http/duration.js';
import { drawLine, spinnerMode, type IO } from '../../core/io/io.js';
import { notice } from '../../core/output/notice.js';
import type { OutputSettings } from '../../core/output/options.js';
import { isDefiniteRefusal, type ResultRecord } from '../../core/journal/bulk.js';
import type { Clock } from '../../core/time/clock.js';
import { endedPartly, endedUnfulfilled } from '../../contract/order-values.js';
import { issuedWords } from './bulk-noted.js';

export interface Progress {
  /** A row finished. */
  update(result: ResultRecord): void;
  /** Clear the line (before the summary). */
  done(): void;
}

/**
 * `maxRate`: orders a second the pacer allows, when it paces. The ETA counts at most that
 * rate: the first window's burst goes faster, and an ETA from it would promise minutes
 * for what takes an hour. With JSON output (`settings`), no line is drawn and each row not
 * ordered is a JSON notice: stderr holds JSON lines only.
 */
export function startProgress(
  io: IO,
  clock: Clock,
  total: number,
  alreadyDone: number,
  maxRate?: number,
  settings: Pick<OutputSettings, 'format'> = { format: 'table' },
): Progress {
  const started = clock.now();
  let done = alreadyDone;
  let ranNow = 0;
  let failed = 0;
  let unknownRows = 0;
  let notSent = 0;
  let unfulfilled = 0;
  let partly = 0;
  const line = liveLine(io, clock, settings, (now) => {
    const secs = Math.max(0.001, (now - started) / 1000);
    const rate = ranNow / secs;
    const left = total - done;
    const expected = maxRate === undefined ? rate : rate > 0 ? Math.min(rate, maxRate) : maxRate;
    const eta = expected > 0 ? formatDuration(Math.round((left / expected) * 1000)) : '…';
    return `orders ${done}/${total} · ${rate.toFixed(1)}/s · ETA ${left === 0 ? '0s' : eta} · ${failed} failed${unknownRows > 0 ? ` · ${unknownRows} unknown` : ''}${notSent > 0 ? ` · ${notSent} not sent` : ''}${unfulfilled > 0 ? ` · ${unfulfilled} not fulfilled` : ''}${partly > 0 ? ` · ${partly} partially delivered` : ''}`;
  });
  const { clear, draw } = line;
  return {
    update(result) {
      done += 1;
      ranNow += 1;
      if (!result.ok) {
        const refused = isDefiniteRefusal(result);
        if (refused) failed += 1;
        else if (result.sent === false) notSent += 1;
        else unknownRows += 1;
        clear();
        // An answer that does not prove the order absent is never reported as a failure of the row.
        const unknown = refused
          ? ''
          : result.sent === false
            ? 'not sent: '
            : result.error_code === 'NOT_RESENT_KEY_EXPIRED'
              ? 'unknown, not re-sent: '
              : 'unknown: resume to find out: ';
        notice(
          io,
          settings,
          'ROW_NOT_ORDERED',
          `line ${result.row}: ${unknown}${result.error_code ?? 'ERROR'}: ${result.error ?? ''}${result.trace_id ? ` (trace ${result.trace_id})` : ''}`,
        );
      }
      if (result.ok && endedUnfulfilled(result.status)) {
        unfulfilled += 1;
        clear();
        // Placed, and never sent again: said as it comes, as a row not ordered is.
        notice(
          io,
          settings,
          'ROW_NOT_FULFILLED',
          `line ${result.row}: order ${result.order_id ?? '(no id)'} answered ${result.status}: no voucher issued${result.trace_id ? ` (trace ${result.trace_id})` : ''}`,
        );
      } else if (result.ok && endedPartly(result.status)) {
        partly += 1;
        clear();
        notice(
          io,
          settings,
          'ROW_PARTIALLY_DELIVERED',
          `line ${result.row}: order ${result.order_id ?? '(no id)'} answered ${result.status}: ${issuedWords(result)}, the failed part refunded${result.trace_id ? ` (trace ${result.trace_id})` : ''}`,
        );
      }
      draw(done === total);
    },
    done: line.done,
  };
}

export interface FollowProgress {
  /** An order followed is final now. */
  settled(): void;
  /** Clear the line (before the summary). */
  done(): void;
}

/**
 * The progress line of a bulk run following its orders not final yet (--wait), on a TTY
 * stderr: `following 12 pending orders: 7 final, 5 pending, 1m02s`, the time redrawn each
 * second. Nothing is drawn where the ordering's line is not (a pipe, TERM=dumb, JSON).
 */
export function startFollowProgress(
  io: IO,
  clock: Clock,
  count: number,
  settings: Pick<OutputSettings, 'format'> = { format: 'table' },
): FollowProgress {
  const started = clock.now();
  let final = 0;
  const line = liveLine(
    io,
    clock,
    settings,
    (now) =>
      `following ${count} pending order${count === 1 ? '' : 's'}: ${final} final, ${count - final} pending, ${elapsedWords(now - started)}`,
  );
  const tick = line.live ? setInterval(() => line.draw(true), 1_000) : undefined;
  tick?.unref?.();
  return {
    settled() {
      final += 1;
      line.draw(final === count);
    },
    done() {
      if (tick) clearInterval(tick);
      line.done();
    },
  };
}

/** `7s`, `1m02s`, `1h05m09s`: the time a run has been following, its width steady as it grows. */
function elapsedWords(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${s.padStart(2, '0')}s`;
  return m > 0 ? `${m}m${s.padStart(2, '0')}s` : `${s}s`;
}

/**
 * A line redrawn in place on a TTY stderr (`text` says what it shows at a time): at most
 * every 100 ms, a redraw held back by that limit done when it ends, cut to the terminal's
 * width, and registered on the IO while it shows, so that other stderr lines go above it.
 * With JSON output, on a pipe, under TERM=dumb or in a CI job, nothing is drawn (`live` false).
 */
function liveLine(
  io: IO,
  clock: Clock,
  settings: Pick<OutputSettings, 'format'>,
  text: (now: number) => string,
): { live: boolean; draw(force: boolean): void; clear(): void; done(): void } {
  let drawnAt = 0;
  let drawn = false;
  // Redrawn in place: where a spinner would be animated (a terminal with cursor control, not
  // a CI job's log, even one given a pseudo-terminal).
  const json = settings.format === 'json' || settings.format === 'ndjson';
  const live = spinnerMode(io) === 'animated' && !json;
  const clear = () => {
    if (drawn) {
      io.stderr.write('\r\x1b[2K');
      drawn = false;
    }
  };
  // A redraw held back by the 100 ms limit is done when the limit ends: the last rows of a
  // burst before a long pacing wait would otherwise stay unshown for the whole wait.
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const draw = (force: boolean) => {
    if (!live) return;
    const now = clock.now();
    if (!force && now - drawnAt < 100) {
      trailing ??= setTimeout(
        () => {
          trailing = undefined;
          if (io.statusLine) draw(true);
        },
        100 - (now - drawnAt),
      );
      trailing.unref?.();
      return;
    }
    if (trailing) clearTimeout(trailing);
    trailing = undefined;
    drawnAt = now;
    const line = text(now);
    // Cut to the terminal's width: a line that wraps cannot be cleared, and each redraw would leave one behind.
    const width = (io.stderr as { columns?: number }).columns ?? io.columns;
    io.stderr.write(`\r\x1b[2K${width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line}`);
    drawn = true;
  };
  draw(true);
  // Other stderr lines meanwhile (a pacing notice, a retry's) go above the line, not onto it;
  // no request's spinner is drawn beside it.
  if (live) io.statusLine = { clear, redraw: () => draw(true) };
  const undrawn = live ? drawLine(io.stderr) : undefined;
  return {
    live,
    draw,
    clear,
    done() {
      if (trailing) clearTimeout(trailing);
      trailing = undefined;
      if (live) io.statusLine = undefined;
      undrawn?.();
      clear();
    },
  };
}
