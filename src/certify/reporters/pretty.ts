/**
 * The pretty reporter: certify as a person watches it. Writes to stdout or stderr, as the
 * command decides (stderr when another reporter has stdout).
 *
 * On a terminal: a live line per check (an ora spinner while it runs, then its status,
 * duration and what was seen), then each failure's expected / actual / reproduce command /
 * trace IDs, the run's warnings and the verdict. The results are listed once: a run whose
 * results come to `finish` alone (none shown live) has them in a table instead (id, status,
 * duration, message, and the trace ID of each failure) fitted to the terminal's width.
 * The checks a run cut by --timeout did not reach take one line (or one row), not one each.
 *
 * Piped (or TERM=dumb): plain lines, no colour, no spinner, one per check as it ends:
 *
 *   PASS access.credentials  12 ms  GET /wallets answered 200
 *
 * then each failure's details, the run's warnings and the verdict:
 *
 *   Certification passed: 28 passed, 2 warnings, 3 skipped
 *
 * Text from the run (messages, a server's answers) is escaped: nothing a terminal would act on.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { escapeText } from '../../core/output/printable.js';
import { asciiText } from '../../core/io/ascii.js';
import { asciiOnly, colorEnabled, stderrColumns, type IO } from '../../core/io/io.js';
import { wrapNote } from '../../core/io/note-wrap.js';
import { cellWidth, drawBox, truncateCells, wrapCells } from '../../core/output/cells.js';
import { layoutTable, MIN_COLUMN_WIDTH } from '../../core/output/table-layout.js';
import { startSpinner, type Spinner } from '../../core/output/spinner.js';
import type { CertifyReport } from '../report.js';
import type { CheckDef, CheckResult, CheckStatus } from '../types.js';
import { STATUS_WORD, extraWarnings, formatDuration, hasDetails, productText, verdictText } from './common.js';

export interface PrettyOptions {
  io: IO;
  /** The stream written to: stdout, or stderr when another reporter writes to stdout. */
  stream: 'stdout' | 'stderr';
  /** false with --no-color (NO_COLOR, FORCE_COLOR, TERM=dumb and a non-TTY stream are checked here anyway). */
  color?: boolean;
}

/** What `begin` announces. */
export interface PrettyRunInfo {
  mode: 'sandbox' | 'profile';
  baseUrl: string;
  /** The profile's name in profile mode. */
  profile?: string | null;
  /** How many checks the checklist has (skipped ones included). */
  checks: number;
}

export interface PrettyReporter {
  /** The run starts: one line naming the server and how many checks (optional). */
  begin(info: PrettyRunInfo): void;
  /** A check starts (skipped checks never start: their result comes alone). */
  start(check: Pick<CheckDef, 'id' | 'title'>): void;
  /** A check ended (or was skipped). */
  result(result: CheckResult): void;
  /** A line while a check runs (a wait of a second or more): above the spinner on a terminal. */
  note(message: string): void;
  /**
   * The run is over: the failures' details, the run's warnings and the verdict. Results of
   * the report not given to `result` are printed first (on a terminal, as a table when none
   * was given), so `finish` alone prints a whole run.
   */
  finish(report: CertifyReport): Promise<void>;
  /** Stop the spinner without a summary (Ctrl-C). Safe to call more than once. */
  stop(): Promise<void>;
}

/** Glyphs of the live lines on a terminal. */
/** The most lines a message takes in the summary table; the rest is in the details and the JSON report. */
const MESSAGE_LINES = 3;

/** A message wrapped to `width` cells on at most MESSAGE_LINES lines, the last one cut (with `ellipsis`). */
function messageLines(text: string, width: number, ellipsis: string): string[] {
  const lines = wrapCells(text, width);
  const kept = lines.slice(0, MESSAGE_LINES);
  if (lines.length > MESSAGE_LINES)
    kept[MESSAGE_LINES - 1] = truncateCells(`${kept[MESSAGE_LINES - 1]!} ${lines[MESSAGE_LINES]!}`, width, ellipsis);
  return kept;
}

/** Narrower than this, the MESSAGE column gives way to one block a check. */
const NARROW_MESSAGE = 24;

const SYMBOL: Record<CheckStatus, string> = { pass: '✔', warn: '!', fail: '✖', skip: '-' };

function paint(status: CheckStatus, text: string, c: ChalkInstance): string {
  switch (status) {
    case 'pass':
      return c.green(text);
    case 'warn':
      return c.yellow(text);
    case 'fail':
      return c.red(text);
    case 'skip':
      return c.dim(text);
  }
}

/** Free text for a terminal line: every character a terminal may act on escaped. */
const safe = (text: string) => escapeText(text);

/**
 * A result that has nothing to show but its message: a failure without details (a check a
 * run cut by --timeout did not reach) or a skipped check (the seven checks of your own
 * webhook receiver without --webhook-target), and no warning of its own.
 */
const bare = (r: CheckResult) => (r.status === 'skip' || (r.status === 'fail' && !hasDetails(r))) && extraWarnings(r).length === 0;

/** The key results alike share: their status and their message. */
const alikeKey = (r: CheckResult) => `${r.status}\u0000${r.message}`;

/**
 * The results with those that have nothing to show but a status and message they share (the
 * checks a run cut by --timeout did not reach, the checks skipped for one reason) gathered
 * into one group, where the first of them was: each entry a result, or a group of two or more.
 */
function groupAlike(results: readonly CheckResult[]): (CheckResult | CheckResult[])[] {
  const groups = new Map<string, CheckResult[]>();
  for (const r of results) if (bare(r)) groups.set(alikeKey(r), [...(groups.get(alikeKey(r)) ?? []), r]);
  return results.flatMap((r): (CheckResult | CheckResult[])[] => {
    const group = bare(r) ? groups.get(alikeKey(r))! : [r];
    if (group.length < 2) return [r];
    return group[0] === r ? [group] : [];
  });
}

/** A group's line: `12 checks` where a result has its id. */
const groupName = (group: readonly CheckResult[]) => `${group.length} checks`;

/** The plain line of a result: `PASS access.credentials  12 ms  GET /wallets answered 200`. */
export function plainLine(r: CheckResult): string {
  return `${STATUS_WORD[r.status]} ${safe(r.id)}  ${formatDuration(r.duration_ms)}  ${safe(r.message)}`;
}

/** An IO whose stderr is the chosen stream (what startSpinner writes to and checks for a TTY). */
function ioOn(io: IO, stream: 'stdout' | 'stderr'): IO {
  if (stream === 'stderr') return io;
  return Object.create(io, {
    stderr: { value: io.stdout, enumerable: true },
    stderrIsTTY: { value: io.stdoutIsTTY, enumerable: true },
  }) as IO;
}

/** The lines that explain a failure: what failed, expected, actual, the reproduce command, the trace IDs. */
function failureLines(r: CheckResult, c: ChalkInstance): string[] {
  const label = (l: string) => c.dim(`  ${l.padEnd(10)} `);
  const block = (l: string, text: string) => text.split(/\r?\n/).map((line, i) => (i === 0 ? label(l) : ' '.repeat(13)) + safe(line));
  return [
    `${c.red(safe(r.id))} failed: ${safe(r.message)}`,
    ...(r.expected !== undefined ? block('expected:', r.expected) : []),
    ...(r.actual !== undefined ? block('actual:', r.actual) : []),
    ...(r.reproduce !== undefined ? block('reproduce:', r.reproduce) : []),
    ...(r.trace_ids.length > 0 ? [label('trace IDs:') + r.trace_ids.map(safe).join(' ')] : []),
  ];
}

export function createPrettyReporter(options: PrettyOptions): PrettyReporter {
  const io = ioOn(options.io, options.stream);
  const tty = io.stderrIsTTY && io.env.TERM !== 'dumb';
  // Colour as every command has it: on a terminal, or where FORCE_COLOR asks (NO_COLOR wins); the live lines stay for a terminal.
  const color = colorEnabled(io, 'stderr', options.color === false);
  const c = new Chalk({ level: color ? 1 : 0 });
  const ascii = asciiOnly(io);
  const write = (text: string) => {
    io.stderr.write(ascii ? asciiText(text) : text);
  };
  // What is measured to fit the terminal is the text as shown: where only ASCII is shown, an
  // ellipsis is `...`, three cells, so texts are made ASCII before they are measured and cut.
  const fit = ascii ? asciiText : (text: string) => text;
  const ellipsis = ascii ? '...' : '…';
  /** Lines of prose (the run's line, warnings, details, the verdict): on a terminal, wrapped to its width at spaces, as notes are. */
  const writeWrapped = (text: string) => write(tty ? wrapNote(fit(text), stderrColumns(io)) : text);
  const shown = new Set<string>();
  let spinner: Spinner | undefined;
  // start/result are called synchronously by the runner; the spinner loads ora on demand.
  let chain: Promise<void> = Promise.resolve();
  const queue = (step: () => Promise<void> | void) => {
    chain = chain.then(step);
  };

  const stopSpinner = () => {
    spinner?.stop();
    spinner = undefined;
  };

  const liveLine = (r: CheckResult): string => {
    if (!tty) {
      // Piped: the plain line, its status word coloured when FORCE_COLOR asks.
      const word = STATUS_WORD[r.status];
      return color ? paint(r.status, word, c) + plainLine(r).slice(word.length) : plainLine(r);
    }
    const id = fit(safe(r.id));
    // A skipped check did not run: no time of its own.
    const time = r.status === 'skip' ? '' : formatDuration(r.duration_ms);
    // One terminal line: the message is cut to what is left (the table and details show it whole).
    const timed = time ? `${time}  ` : '';
    const room = Math.max(MIN_COLUMN_WIDTH, io.columns - 1 - cellWidth(`${SYMBOL[r.status]} ${id}  ${timed}`));
    const message = truncateCells(fit(safe(r.message)), room, ellipsis);
    return `${paint(r.status, SYMBOL[r.status], c)} ${id}  ${time ? `${c.dim(time)}  ` : ''}${r.status === 'skip' ? c.dim(message) : message}`;
  };

  const printResult = (r: CheckResult) => {
    shown.add(r.id);
    const lines = [liveLine(r), ...extraWarnings(r).map((w) => `  ${c.yellow('Warning:')} ${safe(w)}`)];
    writeWrapped(lines.join('\n') + '\n');
  };

  /**
   * Results alike (the checks a run cut by --timeout did not reach, the checks skipped for one
   * reason): on a terminal one line naming them all, wrapped to its width under the text;
   * piped, a plain line each.
   */
  const printGroup = (group: CheckResult[]) => {
    if (!tty) {
      for (const r of group) printResult(r);
      return;
    }
    for (const r of group) shown.add(r.id);
    const r = group[0]!;
    const text = fit(`${groupName(group)}  ${safe(r.message)}: ${group.map((o) => safe(o.id)).join(', ')}`);
    const lines = wrapCells(text, Math.max(MIN_COLUMN_WIDTH, io.columns - 1 - 2));
    const shade = (l: string) => (r.status === 'skip' ? c.dim(l) : l);
    write(lines.map((l, i) => (i === 0 ? `${paint(r.status, SYMBOL[r.status], c)} ${shade(l)}` : `  ${shade(l)}`)).join('\n') + '\n');
  };

  // On a terminal, skipped checks alike in a row (the seven of your own webhook receiver)
  // are held until one that differs comes, then take one line naming them all.
  let held: CheckResult[] = [];
  const flushHeld = () => {
    const group = held;
    held = [];
    if (group.length === 1) printResult(group[0]!);
    else if (group.length > 1) printGroup(group);
  };

  /**
   * A terminal too narrow for a readable MESSAGE column: one block a check, its status, id
   * and time on a line, the message wrapped under it (and the failing trace ID).
   */
  const blocks = (rows: readonly CheckResult[], texts: string[][]) => {
    const indent = '    ';
    const width = Math.max(MIN_COLUMN_WIDTH, io.columns - 1 - indent.length);
    const lines = rows.flatMap((r, row) => {
      const [id, status, time, message, trace] = texts[row]!;
      const kept = messageLines(message!, width, ellipsis);
      const text = (t: string) => (r.status === 'skip' ? c.dim(t) : t);
      return [
        `${paint(r.status, `${SYMBOL[r.status]} ${status!}`, c)}  ${id!}${time ? `  ${c.dim(time)}` : ''}`,
        ...kept.filter((l) => l !== '').map((l) => indent + text(l)),
        ...(trace ? [`${indent}trace ID ${trace}`] : []),
      ];
    });
    write(lines.join('\n') + '\n');
  };

  const table = async (report: CertifyReport) => {
    // Failures alike take one row: `12 checks`, their message and their ids (cut where the message is).
    const grouped = new Set<CheckResult>();
    const rows = groupAlike(report.checks).map((entry) => {
      if (!Array.isArray(entry)) return entry;
      const row: CheckResult = {
        ...entry[0]!,
        id: groupName(entry),
        message: `${entry[0]!.message}: ${entry.map((o) => o.id).join(', ')}`,
      };
      grouped.add(row);
      return row;
    });
    const failedTraces = rows.some((r) => r.status === 'fail' && r.trace_ids.length > 0);
    const cols: {
      head: string;
      get: (r: CheckResult) => string;
      shrink: boolean;
      align?: 'right';
      priority?: number;
      style?: (t: string, r: CheckResult) => string;
    }[] = [
      { head: 'ID', get: (r) => safe(r.id), shrink: false },
      { head: 'STATUS', get: (r) => r.status, shrink: false, style: (t, r) => paint(r.status, t, c) },
      {
        head: 'TIME',
        get: (r) => (r.status === 'skip' || grouped.has(r) ? '' : formatDuration(r.duration_ms)),
        shrink: false,
        align: 'right',
      },
      { head: 'MESSAGE', get: (r) => safe(r.message), shrink: true },
    ];
    // The failing request is the last one a check made; every trace ID is in the details below.
    if (failedTraces) {
      cols.push({
        head: 'TRACE ID',
        get: (r) =>
          r.status === 'fail' && r.trace_ids.length > 0
            ? safe(r.trace_ids[r.trace_ids.length - 1]!) + (r.trace_ids.length > 1 ? ` (+${r.trace_ids.length - 1})` : '')
            : '',
        shrink: false,
        priority: 0,
      });
    }
    const texts = rows.map((r) => cols.map((col) => fit(col.get(r))));
    // Measured and cut in terminal cells: a server's message may carry CJK text or emoji.
    const natural = cols.map((col, i) => Math.max(cellWidth(col.head), ...texts.map((t) => cellWidth(t[i]!))));
    const layout = layoutTable(
      cols.map((col, i) => ({ natural: natural[i]!, shrink: col.shrink, priority: col.priority })),
      io.columns,
    );
    const messageAt = layout.shown.findIndex((i) => cols[i]!.head === 'MESSAGE');
    if ((messageAt < 0 ? 0 : layout.widths[messageAt]!) < Math.min(NARROW_MESSAGE, natural[3]!)) {
      blocks(rows, texts);
      return;
    }
    const head = layout.shown.map((i, n) => {
      const text = truncateCells(cols[i]!.head, layout.widths[n]!, ellipsis);
      return { text, shown: c.bold(text) };
    });
    // A message wider than its column wraps onto up to MESSAGE_LINES lines (the last one cut):
    // on a narrow terminal a cut at the column's width left only "left …" or "HTTP …".
    const body = rows.flatMap((r, row) => {
      const cells = layout.shown.map((i, n) => {
        const width = layout.widths[n]!;
        const whole = texts[row]![i]!;
        if (!cols[i]!.shrink || cellWidth(whole) <= width) return [truncateCells(whole, width, ellipsis)];
        return messageLines(whole, width, ellipsis);
      });
      const height = Math.max(...cells.map((lines) => lines.length));
      return Array.from({ length: height }, (_, line) =>
        layout.shown.map((i, n) => {
          const text = cells[n]![line] ?? '';
          const style = cols[i]!.style;
          return { text, shown: style && text ? style(text, r) : text };
        }),
      );
    });
    write(
      drawBox(
        head,
        body,
        layout.widths,
        layout.shown.map((i) => cols[i]!.align ?? 'left'),
        ascii,
      ) + '\n',
    );
  };

  return {
    begin(info) {
      queue(() => {
        const where =
          info.mode === 'sandbox'
            ? `the embedded sandbox at ${info.baseUrl}`
            : `${info.profile ? `profile "${safe(info.profile)}": ` : ''}${safe(info.baseUrl)}`;
        writeWrapped(`${c.bold('Certifying')} ${where} (${info.checks} check${info.checks === 1 ? '' : 's'})\n`);
      });
    },
    start(check) {
      queue(async () => {
        stopSpinner();
        flushHeld();
        if (!tty) return;
        spinner = await startSpinner(io, `${safe(check.id)}  ${c.dim(safe(check.title))}`, { color });
      });
    },
    result(r) {
      queue(() => {
        stopSpinner();
        if (tty && r.status === 'skip' && bare(r)) {
          if (held.length > 0 && alikeKey(held[0]!) !== alikeKey(r)) flushHeld();
          held.push(r);
          return;
        }
        flushHeld();
        printResult(r);
      });
    },
    note(message) {
      queue(() => {
        // Wrapped to the terminal as the other lines of prose are: a retry's message (its
        // trace ID at the end) is longer than most terminals are wide.
        // A spinner puts its own two cells before the first line: the lines after it get them too.
        flushHeld();
        const raw = `  ${c.yellow('waiting:')} ${safe(message)}`;
        const indent = spinner ? 2 : 0;
        const line = tty ? wrapNote(fit(raw), stderrColumns(io) - indent).replace(/\n/g, `\n${' '.repeat(indent)}`) : raw;
        if (spinner) spinner.info(line);
        else write(line + '\n');
      });
    },
    async finish(report) {
      queue(async () => {
        stopSpinner();
        flushHeld();
        const out: string[] = [];
        // On a terminal, the live lines are the list of results: the table is for a run
        // whose results come to `finish` alone (none shown live), never a second copy.
        if (tty && shown.size === 0 && report.checks.length > 0) await table(report);
        // The results not given to `result` (the checks a run cut by --timeout did not reach).
        else
          for (const entry of groupAlike(report.checks.filter((r) => !shown.has(r.id))))
            if (Array.isArray(entry)) printGroup(entry);
            else printResult(entry);
        if (report.checks.length === 0) out.push('No check ran.');
        const failures = report.checks.filter((r) => r.status === 'fail');
        // Failures with nothing to show but the same message (the checks a run cut by --timeout
        // did not reach): one line naming them all, not a block each.
        for (const entry of groupAlike(failures)) {
          if (!Array.isArray(entry)) out.push('', ...failureLines(entry, c));
          else out.push('', `${c.red(groupName(entry))} failed: ${safe(entry[0]!.message)}: ${entry.map((o) => safe(o.id)).join(', ')}`);
        }
        const products = (report.products ?? []).filter((p) => p.found !== null);
        if (products.length > 0) {
          const width = Math.max(...products.map((p) => p.role.length));
          out.push('', 'Products used:', ...products.map((p) => `  ${p.role.padEnd(width)}  ${safe(productText(p))}`));
        }
        if (report.warnings.length > 0) {
          out.push('', ...report.warnings.map((w) => `${c.yellow('Warning:')} ${safe(w)}`));
        }
        const verdict = verdictText(report);
        out.push('', report.result === 'passed' ? c.bold.green(verdict) : c.bold.red(verdict));
        writeWrapped(out.join('\n') + '\n');
      });
      await chain;
    },
    async stop() {
      queue(stopSpinner);
      await chain.catch(() => undefined);
    },
  };
}
