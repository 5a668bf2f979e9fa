/**
 * All terminal access goes through one IO object (like gh's IOStreams): streams, TTY
 * facts, environment, colour decision and the interrupt signal. `main.ts` builds the real
 * one from `process`; tests build one with buffers (test/helpers/io.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { asciiText } from './ascii.js';
import { wrapNote } from './note-wrap.js';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  cwd: string;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Fires on SIGINT/SIGTERM; long-running commands stop cleanly and throw InterruptedError. */
  signal: AbortSignal;
  /**
   * Ctrl-C read as a key (a prompt reads the terminal raw, so no SIGINT is sent): the run
   * ends as after a SIGINT, by that signal, so that a shell loop stops too.
   */
  keyInterrupt?: () => void;
  /** Terminal width for tables on a TTY (80 when unknown). */
  columns: number;
  /**
   * A line redrawn in place on a TTY stderr while a command works (a bulk run's progress),
   * when one is shown: `err` writes around it instead of onto it.
   */
  statusLine?: StatusLine;
  /**
   * `--jmespath`: the query applied to every JSON document (and NDJSON line) the command
   * prints on stdout, set once the command line is parsed (core/output/query.ts).
   */
  jsonQuery?: JsonQuery;
}

/** A line on stderr that is redrawn in place (no newline at its end while shown). */
export interface StatusLine {
  /** Take the line off the terminal (the cursor back at the start of an empty line). */
  clear(): void;
  /** Draw it again. */
  redraw(): void;
}

/** A compiled query on printed JSON; `apply` throws a UsageError when the data does not suit it. */
export interface JsonQuery {
  expression: string;
  apply(value: unknown): unknown;
}

/**
 * The lines drawn in place at the foot of a terminal right now (a spinner, a bulk run's
 * progress, a prompt waiting for its answer), by stream: the terminal is the same whichever
 * IO writes to it. A request's spinner shows only when no other line is drawn, and gives
 * way to one drawn after it (`giveWay`). Ctrl-C's echoed ^C is followed by a line break only
 * where none is drawn: a drawn line is cleared or redrawn over it (main.ts).
 */
const drawnLines = new WeakMap<object, Set<{ giveWay?: () => void }>>();

/** A line is drawn on this stream from now until the returned function is called. */
export function drawLine(stream: object, giveWay?: () => void): () => void {
  let lines = drawnLines.get(stream);
  if (!lines) drawnLines.set(stream, (lines = new Set()));
  for (const other of [...lines]) other.giveWay?.();
  const line = { giveWay };
  lines.add(line);
  return () => {
    lines.delete(line);
  };
}

/** Whether a line is drawn in place on this stream (drawLine). */
export function lineDrawn(stream: object): boolean {
  return (drawnLines.get(stream)?.size ?? 0) > 0;
}

/**
 * How a spinner may be drawn on stderr: animated; as plain lines on a terminal without cursor
 * control (TERM=dumb) or in a CI job's log (CI set, even on a pseudo-terminal), which keeps
 * every frame; or not at all (no terminal, or one that reports 0 columns, on which ora would
 * clear lines forever).
 */
export function spinnerMode(io: Pick<IO, 'env' | 'stderr' | 'stderrIsTTY'>): 'animated' | 'lines' | 'none' {
  if (!io.stderrIsTTY || (io.stderr as { columns?: number }).columns === 0) return 'none';
  return io.env.TERM === 'dumb' || inCI(io.env) ? 'lines' : 'animated';
}

/** A CI job: CI set (not empty, `false` or `0`), as every CI service sets it. */
export function inCI(env: IO['env']): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

/**
 * Why nothing may be asked here, or undefined when a question may be: it needs stdin on a
 * terminal, and no CI job (a job given a pseudo-terminal would wait for an answer forever).
 */
export function noPrompt(io: Pick<IO, 'env' | 'stdinIsTTY'>): string | undefined {
  if (!io.stdinIsTTY) return 'stdin is not a terminal';
  return inCI(io.env) ? 'this is a CI job (CI is set)' : undefined;
}

/**
 * Written on a terminal at the first SIGINT, to end the line the terminal echoed ^C on, and
 * nothing visible when no ^C was echoed (a `kill -INT` from elsewhere, the cursor at the start
 * of a line): a line's width of spaces wraps onto the next line only from past the line's start,
 * then that line is cleared from its start. Without cursor control, a line break.
 */
export function interruptLineEnd(io: Pick<IO, 'env' | 'stderr' | 'stderrIsTTY'>): string {
  const columns = (io.stderr as { columns?: number }).columns;
  if (spinnerMode(io) !== 'animated' || !columns) return '\n';
  return `${' '.repeat(columns)}\r\x1b[K`;
}

/**
 * Whether only ASCII can be shown: on a terminal without cursor control (TERM=dumb), or where
 * the locale is not UTF-8 (the first of LC_ALL, LC_CTYPE and LANG that is set: `LANG=C` in an
 * SSH session), on which a spinner's frames, ticks, boxes, arrows and ellipses print as
 * garbage. With none of them set, UTF-8 is assumed (as the terminals of today are).
 */
export function asciiOnly(io: Pick<IO, 'env'>): boolean {
  const env = io.env;
  if (env.TERM === 'dumb') return true;
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== '');
  return locale !== undefined && !/utf-?8/i.test(locale);
}

/** Colour only on a TTY, never with NO_COLOR; FORCE_COLOR=0 disables, FORCE_COLOR>0 forces. */
export function colorEnabled(io: IO, stream: 'stdout' | 'stderr', flagNoColor = false): boolean {
  if (flagNoColor) return false;
  const env = io.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}

/** The width of the terminal stderr is on: its own, else the one stdout reports (80 when unknown). */
export function stderrColumns(io: Pick<IO, 'stderr' | 'columns'>): number {
  return (io.stderr as { columns?: number }).columns || io.columns;
}

/**
 * Streams a write to failed (EPIPE: the reader went away; ENOSPC). Node makes its stdout
 * writable again after an error, and an empty write after it succeeds: the failure is
 * remembered here for stdoutFlushed.
 */
const failed = new WeakSet<Writable>();
const watched = new WeakSet<Writable>();

/** Write text to stdout (data). Resolves once the stream accepts more (backpressure). */
export function out(io: IO, text: string): Promise<void> | void {
  const stream = io.stdout;
  if (!watched.has(stream)) {
    watched.add(stream);
    stream.on('error', () => failed.add(stream));
  }
  if (io.stdout.write(text)) return;
  // A stream that failed (a full disk) never drains: waiting for it ended the process with
  // the command unfinished, and exit 0. main.ts reports the failure.
  const s = io.stdout;
  if (s.destroyed || s.writableEnded) return;
  return new Promise((resolve) => {
    const done = () => {
      s.off('drain', done);
      s.off('error', done);
      s.off('close', done);
      resolve();
    };
    s.once('drain', done);
    s.once('error', done);
    s.once('close', done);
  });
}

/**
 * Whether everything written to stdout so far has left this process (to the terminal, the
 * pipe or the file): resolves once the stream has handed it on, false when the stream
 * failed or was closed (the reader went away: `| head -1`) and it never will.
 */
export function stdoutFlushed(io: IO): Promise<boolean> {
  const s = io.stdout;
  if (failed.has(s) || s.destroyed || s.writableEnded || s.errored) return Promise.resolve(false);
  // Writes complete in order: the callback of an empty one comes after every earlier one.
  return new Promise((resolve) => s.write('', (error) => resolve(!error && !failed.has(s) && !s.errored && !s.destroyed)));
}

/**
 * After a write's answer is printed: once stdout has handed it on, log that it was shown
 * (ApiResponse.shown), so that `vouchers log --unanswered` does not list it. An answer
 * that never left (the output closed, a failed write) is not logged as shown.
 */
export async function answerShown(io: IO, answer: { shown?: () => void }): Promise<void> {
  if (answer.shown && (await stdoutFlushed(io))) answer.shown();
}

/**
 * Write text to stderr (messages, progress). On a terminal, a line wider than it is wrapped
 * at spaces (wrapNote), never inside a command meant to be copied; piped, every line whole.
 */
export function err(io: Pick<IO, 'env' | 'stderr' | 'stderrIsTTY' | 'columns' | 'statusLine'>, text: string): void {
  // Wrapped as shown: where only ASCII is shown, an ellipsis takes three cells.
  const ascii = asciiOnly(io) ? asciiText(text) : text;
  const shown = io.stderrIsTTY ? wrapNote(ascii, stderrColumns(io)) : ascii;
  const line = io.statusLine;
  if (!line) {
    io.stderr.write(shown);
    return;
  }
  // A live status line (a bulk run's progress) is taken off, the text written on its own
  // lines, and the status drawn again below it.
  line.clear();
  io.stderr.write(shown);
  line.redraw();
}

/**
 * The real IO. stdin and stderr are touched only when used: creating either stream loads
 * Node's stream machinery for it (about 3 ms of `vouchers --help`, which uses neither).
 */
export function processIO(proc: NodeJS.Process, signal: AbortSignal, keyInterrupt?: () => void): IO {
  return {
    keyInterrupt,
    get stdin() {
      return proc.stdin;
    },
    stdout: proc.stdout,
    get stderr() {
      return proc.stderr;
    },
    env: proc.env,
    cwd: proc.cwd(),
    get stdinIsTTY() {
      return Boolean(proc.stdin.isTTY);
    },
    stdoutIsTTY: Boolean(proc.stdout.isTTY),
    get stderrIsTTY() {
      return Boolean(proc.stderr.isTTY);
    },
    signal,
    columns: proc.stdout.columns || 80,
  };
}

/** The same IO with another environment; the streams stay as lazy as they were. */
export function withEnv(io: IO, env: IO['env']): IO {
  return Object.create(io, { env: { value: env, enumerable: true } }) as IO;
}
