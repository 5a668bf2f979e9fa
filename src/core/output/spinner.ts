/** Spinners on stderr, only on a TTY (ora, loaded on demand); silent otherwise. */
import { Chalk } from 'chalk';
import type { Ora } from 'ora';
import type { IO } from '../io/io.js';
import { asciiText } from '../io/ascii.js';
import { asciiOnly, colorEnabled, drawLine, spinnerMode } from '../io/io.js';
import { SHOW_AFTER_MS, unrefTimer } from './show-after.js';

export interface Spinner {
  text(message: string): void;
  succeed(message?: string): void;
  fail(message?: string): void;
  /** Print a line above the spinner (or plainly when there is none). */
  info(message: string): void;
  stop(): void;
}

export interface SpinnerOptions {
  /** Print nothing at all, not even `info` lines. */
  quiet?: boolean;
  /** false with --no-color (NO_COLOR and a non-TTY stderr are checked here anyway). */
  color?: boolean;
  /** Called when another line is drawn on the same terminal (a prompt, a command's own spinner): stop then. */
  giveWay?: () => void;
  /**
   * An animated spinner is drawn only once the work has gone on this long (default
   * SHOW_AFTER_MS), so that work done sooner does not flash a frame; 0 draws it at once.
   */
  showAfterMs?: number;
  /** The timer of that wait (tests fire it themselves; what `fn` returns settles once the spinner is drawn). */
  after?: (ms: number, fn: () => Promise<void> | void) => () => void;
}

/** What draws a spinner, loaded when one shows: ora, and the cell widths to fit its line. */
interface Drawing {
  ora: typeof import('ora').default;
  cells: typeof import('./cells.js');
}

async function loadDrawing(): Promise<Drawing> {
  const [ora, cells] = await Promise.all([import('ora'), import('./cells.js')]);
  return { ora: ora.default, cells };
}

export async function startSpinner(io: IO, message: string, options: SpinnerOptions = {}): Promise<Spinner> {
  const mode = spinnerMode(io);
  // Only ASCII where the terminal shows no more (asciiOnly): the messages and the symbols.
  const shown = asciiOnly(io) ? asciiText : (text: string) => text;
  if (mode === 'lines' && !options.quiet) {
    // A terminal without cursor control, or a CI log: the message once, and each outcome, as plain lines.
    io.stderr.write(`${shown(message)}\n`);
    const line = (symbol: string) => (m: string | undefined) => {
      if (m) io.stderr.write(shown(`${symbol}${m}\n`));
    };
    return { text: () => undefined, succeed: line('✔ '), fail: line('✖ '), info: line(''), stop: () => undefined };
  }
  if (mode === 'none' || options.quiet) {
    return {
      text: () => undefined,
      succeed: () => undefined,
      fail: () => undefined,
      info: (m) => {
        if (!options.quiet) io.stderr.write(shown(m) + '\n');
      },
      stop: () => undefined,
    };
  }
  // ora colours its frame and its ✔/✖ by its own detection, which knows neither io.env nor
  // --no-color: the frame colour is turned off and the symbols are drawn here.
  const color = colorEnabled(io, 'stderr', options.color === false);
  const c = new Chalk({ level: color ? 1 : 0 });
  // Drawn on the terminal from when it shows until stopped: no request's spinner beside it, no
  // line break after ^C. Stopped before it shows, it draws nothing; its outcome is a plain line.
  // ora is loaded only when the spinner shows: work done within the delay never pays for it.
  let s: Ora | undefined;
  let ended = false;
  let release: (() => void) | undefined;
  let cancelShow: (() => void) | undefined;
  let text = shown(message);
  /**
   * The live line cut to the terminal's width (read at each change: it may have been
   * resized), as gh does: a line that wraps redraws as two, broken mid-word. The outcome
   * lines that stay are printed whole.
   */
  let fit = (t: string): string => t;
  const show = ({ ora, cells }: Drawing) => {
    cancelShow = undefined;
    if (ended) return;
    fit = (t) => {
      const columns = (io.stderr as { columns?: number }).columns;
      // The frame and its space take 2 cells; one more is kept so the line never reaches the edge.
      return columns ? cells.truncateCells(t, Math.max(1, columns - 3), shown === asciiText ? '...' : '…') : t;
    };
    s = ora({
      text: fit(text),
      // ora picks its frames by its own guess of the terminal: ASCII ones where asciiOnly says so.
      ...(shown === asciiText ? { spinner: 'line' as const } : {}),
      stream: io.stderr as NodeJS.WritableStream,
      color: color ? 'cyan' : false,
      isEnabled: true,
      discardStdin: false,
    });
    release = drawLine(io.stderr, options.giveWay);
    s.start();
  };
  const drawn = () => s?.isSpinning === true;
  const cleared = () => {
    ended = true;
    cancelShow?.();
    cancelShow = undefined;
    release?.();
    release = undefined;
  };
  const persist = (symbol: string, m: string | undefined) => {
    const was = drawn();
    cleared();
    const line = m === undefined ? m : shown(m);
    if (was) s!.stopAndPersist({ symbol: shown(symbol), text: line });
    else io.stderr.write(`${shown(symbol)} ${line ?? text}\n`);
  };
  const delay = options.showAfterMs ?? SHOW_AFTER_MS;
  if (delay > 0) cancelShow = (options.after ?? unrefTimer)(delay, async () => show(await loadDrawing()));
  else show(await loadDrawing());
  return {
    text: (m) => {
      text = shown(m);
      if (s) s.text = fit(text);
    },
    succeed: (m) => persist(c.green('✔'), m),
    fail: (m) => persist(c.red('✖'), m),
    info: (m) => {
      if (!drawn()) {
        io.stderr.write(`  ${shown(m)}\n`);
        return;
      }
      s!.stopAndPersist({ symbol: ' ', text: shown(m) });
      s!.start();
    },
    stop: () => {
      const was = drawn();
      cleared();
      if (was) s!.stop();
    },
  };
}
