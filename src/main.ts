/**
 * The only place that touches `process` (argv, env, exit, signals) and the only place
 * that decides exit codes.
 */
import { setMaxListeners } from 'node:events';
import { ENV } from './core/config/types.js';
import { CliError, InterruptedError, OutputClosed, QueryRunError, UsageError, type ErrorKind } from './core/errors/index.js';
import { colorEnabled, interruptLineEnd, lineDrawn, processIO, withEnv, type IO } from './core/io/io.js';
import { loadColour } from './core/output/colour.js';
import { createFactory, type FactoryOverrides, type GlobalOptions } from './factory.js';
import type { RunSeam } from './commands/types.js';
import { asksVersionOnly, VERSION } from './core/version.js';
import { forgetSeen } from './core/output/seen.js';

/** Exit codes, documented in the README. */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  not_found: 4,
  rejected: 5,
  rate_limited: 6,
  network: 7,
  pending: 8,
  certification: 9,
  cancelled: 10,
  interrupted: 130,
} as const satisfies Record<ErrorKind | 'ok', number>;

/** commander's own errors (parse failures, help, version), recognised without loading commander. */
interface CommanderFailure {
  code: string;
  exitCode: number;
}
function isCommanderError(error: unknown): error is CommanderFailure {
  if (!(error instanceof Error)) return false;
  const e = error as Error & Partial<CommanderFailure>;
  return typeof e.code === 'string' && e.code.startsWith('commander.') && typeof e.exitCode === 'number';
}

export function exitCodeFor(error: unknown): number {
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
    if (error.code === 'commander.executeSubCommandAsync') return error.exitCode;
    return EXIT.usage;
  }
  if (error instanceof CliError) return EXIT[error.kind];
  if (isAbort(error)) return EXIT.interrupted;
  return EXIT.unexpected;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error instanceof InterruptedError);
}

/**
 * Run the CLI with the given arguments (without `node` and the script) and IO; returns the
 * exit code. With a seam, each verb's parsed input goes to it instead of the verb (tests).
 */
export async function run(argv: string[], givenIO: IO, overrides: FactoryOverrides = {}, seam?: RunSeam): Promise<number> {
  // --no-color means NO_COLOR for everything that draws: tables, errors, spinners, the demo.
  const io: IO = argv.includes('--no-color') ? withEnv(givenIO, { ...givenIO.env, NO_COLOR: '1' }) : givenIO;
  if (asksVersionOnly(argv)) {
    // Answered before the command tree is built: scripts call this often.
    io.stdout.write(VERSION + '\n');
    return EXIT.ok;
  }
  // Codes and secrets seen by an earlier run (in the same process) are not this run's.
  forgetSeen();
  const { buildProgram, flushUsageErrors, helpArgv, swallowedCommand, unknownHelpTopic, wantsJson } = await import('./program.js');
  argv = helpArgv(argv);
  const { program, factory } = await buildProgram(io, (g) => createFactory(io, g as () => GlobalOptions, overrides), { argv, run: seam });
  // Tables and records are coloured only on a terminal (or FORCE_COLOR): chalk only then.
  if (colorEnabled(io, 'stdout')) await loadColour();
  try {
    const unknown = (await unknownHelpTopic(program, argv)) ?? swallowedCommand(program, argv);
    if (unknown) throw new UsageError(unknown.message, unknown.hint);
    await program.parseAsync(argv, { from: 'user' });
    await flushUsageErrors();
    return EXIT.ok;
  } catch (error) {
    const code = exitCodeFor(error);
    // The profile's secrets are masked in every error, also in one raised before the command
    // read the profile (a usage error quoting a value typed in the wrong place): read it now.
    // Not for --help and --version, which end here too.
    const used = code !== EXIT.ok ? await factory.profile().catch(() => undefined) : undefined;
    await flushUsageErrors();
    if (isCommanderError(error)) return code; // commander already printed it
    // Stopped because nobody reads the output any more: nothing to say, to no one.
    if (io.signal.reason instanceof OutputClosed && (isAbort(error) || (error instanceof CliError && error.kind === 'interrupted')))
      return EXIT.ok;
    // A --jmespath that could not run on a read's output: the answer it ran on is the run's last.
    if (error instanceof QueryRunError) error.traceId ??= factory.lastAnswered();
    const interrupted = io.signal.aborted && code !== EXIT.pending;
    const { renderError } = await import('./core/output/error.js');
    renderError(io, interrupted && !(error instanceof CliError) ? new InterruptedError() : error, {
      json: wantsJson(argv),
      debug: Boolean(program.opts().debug) || argv.includes('--debug'),
      color: program.opts().color !== false,
      globals: {
        profile: program.opts().profile as string | undefined,
        baseUrl: program.opts().baseUrl as string | undefined,
        // Where a refused key or secret came from, for the hint to name (never their values).
        envCredentials: [
          ...(used?.sources.api_key === 'env' ? [ENV.apiKey] : []),
          ...(used?.sources.api_secret === 'env' ? [ENV.apiSecret] : []),
        ],
        ...(used?.sources.base_url
          ? { baseUrlFrom: { source: used.sources.base_url, ...(used.exists ? { profile: used.name } : {}) } }
          : {}),
      },
    });
    return interrupted && !(error instanceof CliError) ? EXIT.interrupted : code;
  } finally {
    await factory.dispose().catch(() => undefined);
  }
}

/** How long a command may take to stop after its output was closed. */
const OUTPUT_CLOSED_GRACE_MS = 10_000;

/** A repeated signal counts as "stop now" only this long after the first one. */
const FORCE_AFTER_MS = 300;

/**
 * Listeners the interrupt signal may carry at once: every request in flight and every wait
 * (pacing, retry backoff) listens to it, a few each, and a bulk run has up to 32 requests in
 * flight. Past Node's default of 10 it printed a MaxListenersExceededWarning in bulk runs.
 */
export const INTERRUPT_LISTENERS = 256;

/** The CLI's interrupt: aborted by the first SIGINT, SIGTERM or SIGHUP. */
export function interruptController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(INTERRUPT_LISTENERS, controller.signal);
  return controller;
}

/**
 * What still holds when a command's output could not be written, by command: running it
 * again is not the way back for a write (a second order).
 */
const OUTPUT_LOST_RAN: Record<string, string> = {
  orders: 'the command itself ran: an order it placed stays placed (vouchers log --unanswered lists it, with its idempotency key)',
  payouts: 'the command itself ran: a payout it made stays made (vouchers log --unanswered lists it, with its idempotency key)',
  listen: 'the listener itself ran: the events it acknowledged are in its inbox (see vouchers events list)',
};

export async function main(proc: NodeJS.Process): Promise<void> {
  const controller = interruptController();
  let firstSignalAt: number | undefined;
  let firstSignal: NodeJS.Signals | undefined;
  const stop = (sig: NodeJS.Signals, key: boolean) => {
    const now = Date.now();
    if (firstSignalAt === undefined) {
      firstSignalAt = now;
      firstSignal = sig;
      // The terminal echoed ^C where the cursor was: what the stop prints starts on a line of
      // its own (and no blank line is added when nothing was echoed: a kill -INT). Not over a
      // spinner or a progress line, which is cleared or redrawn over the ^C; not for a key
      // read by a prompt (nothing echoed, the prompt ends its own line).
      if (sig === 'SIGINT' && !key && proc.stderr.isTTY && !lineDrawn(proc.stderr))
        proc.stderr.write(interruptLineEnd({ env: proc.env, stderr: proc.stderr, stderrIsTTY: true }));
      controller.abort(new InterruptedError(`interrupted by ${sig}`));
      return;
    }
    // A second Ctrl-C from the user does not wait for the clean stop. One arriving at once
    // is not the user: libraries' exit hooks (conf's write-file-atomic) re-raise the signal.
    if (now - firstSignalAt > FORCE_AFTER_MS) proc.exit(EXIT.interrupted);
  };
  const onSignal = (sig: NodeJS.Signals) => stop(sig, false);
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);
  // The terminal closed: stop as cleanly as on Ctrl-C (a listener puts the webhook endpoint
  // back, a bulk run journals what it sent) instead of dying where it stands.
  proc.on('SIGHUP', onSignal);
  // The reader of stdout went away (`| head -1`): stop as cleanly as on SIGTERM (a listener
  // puts the webhook endpoint back) and exit 0 without a word; a command that does not
  // notice within OUTPUT_CLOSED_GRACE_MS is ended anyway.
  let writeFailure: NodeJS.ErrnoException | undefined;
  proc.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') {
      if (controller.signal.reason instanceof OutputClosed) return;
      controller.abort(new OutputClosed());
      setTimeout(() => proc.exit(EXIT.ok), OUTPUT_CLOSED_GRACE_MS).unref();
      return;
    }
    // Any other failure (a full disk, EIO): the output is incomplete, which must not exit 0.
    writeFailure ??= e;
  });
  // Writes to a terminal that has gone (EIO after SIGHUP) must not stop the clean stop.
  proc.stderr.on('error', () => undefined);
  // A shell left in a folder that was deleted since: every command resolves paths against
  // it, so none runs; said plainly, not as Node's uv_cwd stack trace.
  try {
    proc.cwd();
  } catch (e) {
    const message = `the current folder cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}): it was deleted or moved after this shell entered it`;
    const hint = 'cd into a folder that exists, then run the command again';
    const { wantsJson } = await import('./program.js');
    proc.stderr.write(
      wantsJson(proc.argv.slice(2))
        ? JSON.stringify({ error: { name: 'UsageError', code: 'NO_CURRENT_FOLDER', message, hint }, trace_id: null }) + '\n'
        : `Error: ${message}\n  hint      ${hint}\n`,
    );
    proc.exitCode = EXIT.usage;
    return;
  }
  // A signal that came while the CLI loaded (held by launch.ts) is emitted only when the
  // event loop next polls; the command starts after that, so that it sends nothing once stopped.
  await new Promise((resolve) => setImmediate(resolve));
  const io = processIO(proc, controller.signal, () => stop('SIGINT', true));
  const code = await run(proc.argv.slice(2), io);
  // The last write's failure is emitted on a later turn.
  await new Promise((resolve) => setImmediate(resolve));
  if (writeFailure) {
    // The command ran; only its output was lost. Running it again is not the way back for a
    // write (a second order): the hint says so.
    const message = `could not write the output (${writeFailure.code ?? 'error'}): ${writeFailure.message.replace(/^[A-Z]+: /, '')}; what it holds is incomplete`;
    const { invokedNoun, wantsJson } = await import('./program.js');
    const hint = `${OUTPUT_LOST_RAN[invokedNoun(proc.argv.slice(2)) ?? ''] ?? 'the command itself ran'}; free space where the output goes, or send it elsewhere`;
    proc.stderr.write(
      wantsJson(proc.argv.slice(2))
        ? JSON.stringify({ error: { name: 'OutputError', code: writeFailure.code ?? 'OUTPUT_ERROR', message, hint }, trace_id: null }) +
            '\n'
        : `Error: ${message}\n  hint      ${hint}\n`,
    );
  }
  // A command stopped by its closed output ends quietly with 0; one that had already failed
  // (a certification, a refused bulk row) keeps its code: `| head -1` must not turn it into a pass.
  const stoppedByClosedOutput = controller.signal.reason instanceof OutputClosed && code === EXIT.interrupted;
  proc.exitCode = writeFailure && code === EXIT.ok ? EXIT.unexpected : stoppedByClosedOutput ? EXIT.ok : code;
  proc.off('SIGINT', onSignal);
  proc.off('SIGTERM', onSignal);
  proc.off('SIGHUP', onSignal);
  // Stopped cleanly by Ctrl-C: end by SIGINT itself, not exit 130, so that a shell running
  // this in a loop (`for … do vouchers orders create …; done`) stops the loop as well; the
  // shell still reports $? as 130. Exiting 130 let the loop place the next order.
  if (firstSignal === 'SIGINT' && proc.exitCode === EXIT.interrupted && !(controller.signal.reason instanceof OutputClosed)) {
    await Promise.all([proc.stdout, proc.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
    proc.kill(proc.pid, 'SIGINT');
    // A library's SIGINT listener (conf's atomic writes, through signal-exit) turns the signal
    // into an event of the loop, handled on a later turn, after which it sends it again
    // unhandled. The loop must still be running then, or the process ends with 130 first.
    setTimeout(() => undefined, 1_000);
  }
}
