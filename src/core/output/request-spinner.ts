/**
 * A spinner on stderr while a one-shot request is slow to answer: every request of a CLI run
 * goes through it (core/run/profile-client.ts). Nothing is drawn for an answer that comes
 * within SHOW_AFTER_MS, and ora is loaded only once that much time has passed, so a fast
 * command neither flickers one nor pays for it. The spinner is taken off as soon as a request
 * settles, before the command prints anything; during a retry or rate-limit wait it says how
 * long is left.
 */
import { formatDuration } from '../http/duration.js';
import { lineDrawn, spinnerMode, type IO } from '../io/io.js';
import { escapeText } from './printable.js';
import { SHOW_AFTER_MS, unrefTimer } from './show-after.js';
import type { Spinner } from './spinner.js';

export interface RequestSpinnerOptions {
  /** Machine-readable output (--json): nothing is drawn, as for the other spinners. */
  quiet?: boolean;
  /** false with --no-color. */
  color?: boolean;
  now: () => number;
  /**
   * Run `fn` once after `ms` (what it returns settles once the spinner is drawn, or not);
   * returns what cancels it. Default: a timer that does not keep the process alive.
   */
  after?: (ms: number, fn: () => Promise<void> | void) => () => void;
}

export interface RequestSpinner {
  /** A request leaves (`label`: its method and path); call what is returned once it has settled. */
  begin(label: string): () => void;
  /** The pipeline waits `waitMs` before its next attempt: a retry, or to stay under the rate limit. */
  waiting(kind: 'retry' | 'rate_limit', waitMs: number): void;
}

export function requestSpinner(io: IO, options: RequestSpinnerOptions): RequestSpinner {
  const after = options.after ?? unrefTimer;
  const inFlight = new Set<{ label: string }>();
  let cancelTimer: (() => void) | undefined;
  let spinner: Spinner | undefined;
  /** Bumped each time the spinner is taken off: a spinner still loading then is not shown. */
  let generation = 0;
  let wait: { kind: 'retry' | 'rate_limit'; until: number } | undefined;
  let stopTicking: (() => void) | undefined;

  const text = (): string => {
    const what = inFlight.size === 1 ? escapeText([...inFlight][0]!.label) : `${inFlight.size} requests`;
    const left = wait ? wait.until - options.now() : 0;
    if (!wait || left < 1000) return `Waiting for ${what}…`;
    const time = formatDuration(Math.ceil(left / 1000) * 1000);
    return wait.kind === 'retry' ? `${what}: retrying in ${time}…` : `${what}: waiting ${time} for the rate limit…`;
  };

  /** While a wait is counted down, the text is said again each second. */
  const tick = () => {
    stopTicking?.();
    stopTicking = undefined;
    if (!spinner) return;
    spinner.text(text());
    if (wait && wait.until - options.now() >= 1000) stopTicking = after(1000, tick);
  };

  const hide = () => {
    cancelTimer?.();
    cancelTimer = undefined;
    stopTicking?.();
    stopTicking = undefined;
    generation++;
    const shown = spinner;
    spinner = undefined;
    shown?.stop();
  };

  const show = async () => {
    cancelTimer = undefined;
    const drawable = () => inFlight.size > 0 && !io.signal.aborted && !lineDrawn(io.stderr);
    if (!drawable()) return;
    const mine = generation;
    const { startSpinner } = await import('./spinner.js');
    if (mine !== generation || !drawable()) return;
    // Another line drawn on the terminal (a prompt) takes its place; the next request may show it again.
    const started = await startSpinner(io, text(), { color: options.color, giveWay: hide, showAfterMs: 0 });
    if (mine !== generation) {
      started.stop();
      return;
    }
    spinner = started;
    tick();
  };

  const arm = () => {
    if (cancelTimer || spinner) return;
    cancelTimer = after(SHOW_AFTER_MS, show);
  };

  if (options.quiet || spinnerMode(io) !== 'animated') return { begin: () => () => undefined, waiting: () => undefined };
  return {
    begin(label) {
      const request = { label };
      inFlight.add(request);
      arm();
      let settled = false;
      return () => {
        if (settled) return;
        settled = true;
        inFlight.delete(request);
        // Off before the command prints what came; drawn again when another request stays slow.
        hide();
        if (inFlight.size > 0) arm();
        else wait = undefined;
      };
    },
    waiting(kind, waitMs) {
      wait = { kind, until: options.now() + waitMs };
      tick();
    },
  };
}
