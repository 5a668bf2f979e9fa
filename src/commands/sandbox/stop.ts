/**
 * `vouchers sandbox stop`: SIGTERM the sandbox of a profile (--profile, else the only one
 * running, else the current profile's), or every one with --all; wait for each to exit (it
 * shuts down cleanly and flushes its state file), remove its pid file.
 */
import { ENV } from '../../core/config/types.js';
import { CliError, UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { isProcessAlive, signalProcess } from '../../core/io/processes.js';
import { notice } from '../../core/output/notice.js';
import { printJson } from '../../core/output/print.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import { startSpinner } from '../../core/output/spinner.js';
import type { Factory } from '../../core/run/factory.js';
import { LOCAL_PROFILE } from './local-profile.js';
import { removePidFile, type PidEntry } from './pid-file.js';
import { describeSandboxes, runningSandboxes, staleNote } from './running.js';
import type { StopFlags } from './index.js';

export type { StopFlags };

const STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 50;

/** Which of the running sandboxes to stop. */
function choose(f: Factory, running: PidEntry[], flags: StopFlags, current: string | undefined): PidEntry[] {
  const named = f.globals().profile;
  if (flags.all) {
    if (named !== undefined) throw new UsageError('--all and --profile cannot be used together', 'give one of them');
    return running;
  }
  const others = running.length > 0 ? `; running: ${describeSandboxes(running)}` : '';
  if (named !== undefined) {
    const mine = running.filter((e) => e.record.profile === named);
    if (mine.length > 0) return mine;
    throw new CliError(
      'not_found',
      `no sandbox is running for the profile "${named}"${others}`,
      running.length > 0
        ? `stop one of those with --profile NAME, or all with: vouchers sandbox stop --all`
        : `start one in the background with: vouchers sandbox start --detach${named === LOCAL_PROFILE ? '' : ` --profile ${shellQuote(named)}`}`,
    );
  }
  if (running.length <= 1) return running;
  // Several: the current profile's (VOUCHERS_PROFILE, else the profile in use), if it has one.
  const mine = current === undefined ? [] : running.filter((e) => e.record.profile === current);
  if (mine.length > 0) return mine;
  throw new UsageError(
    `${running.length} sandboxes are running: ${describeSandboxes(running)}`,
    `say which with --profile NAME (vouchers sandbox stop --profile ${shellQuote(running[0]!.record.profile)}), or stop them all with --all`,
  );
}

/** SIGTERM, then wait (SIGKILL after STOP_TIMEOUT_MS); true when it had to be killed. */
async function stopOne(f: Factory, e: PidEntry, quiet: boolean): Promise<boolean> {
  const { io, clock } = f;
  const { pid } = e.record;
  signalProcess(pid, 'SIGTERM');
  let deadline = clock.now() + STOP_TIMEOUT_MS;
  let forced = false;
  // It saves its state before it exits: a spinner on a terminal while it does.
  const spinner = await startSpinner(io, `Stopping the sandbox of profile "${e.record.profile}" (pid ${pid})…`, {
    quiet,
    color: f.globals().color !== false,
  });
  try {
    while (isProcessAlive(pid)) {
      if (clock.now() > deadline) {
        if (forced)
          throw new CliError('unexpected', `process ${pid} did not exit, even after SIGKILL`, 'check it with ps, and stop it by hand');
        spinner.stop();
        err(io, `The sandbox (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000}s; sending SIGKILL.\n`);
        signalProcess(pid, 'SIGKILL');
        forced = true;
        deadline = clock.now() + 2_000;
      }
      await clock.sleep(POLL_MS, io.signal);
    }
  } finally {
    spinner.stop();
  }
  removePidFile(e.file, pid);
  return forced;
}

export async function run(f: Factory, flags: StopFlags): Promise<void> {
  const { io } = f;
  const store = await f.config();
  const format = flags.json ? 'json' : 'table';
  const { running, removed } = runningSandboxes(store.dir);
  for (const e of removed) notice(io, { format }, 'STALE_PID_FILE', staleNote(e));
  const chosen = choose(f, running, flags, io.env[ENV.profile] || store.currentName());
  if (chosen.length === 0) {
    if (flags.all) {
      if (flags.json) await printJson(io, { stopped: [] });
      notice(io, { format }, 'NOTHING_TO_STOP', 'No sandbox is running: nothing to stop.\n');
      return;
    }
    // A pid file of a process gone was said above, removed.
    throw new CliError('not_found', 'no sandbox is running', 'start one in the background with: vouchers sandbox start --detach');
  }
  const stopped: { pid: number; profile: string; base_url: string; forced: boolean }[] = [];
  for (const e of chosen) {
    const forced = await stopOne(f, e, flags.json === true);
    stopped.push({ pid: e.record.pid, profile: e.record.profile, base_url: e.record.base_url, forced });
    notice(
      io,
      { format },
      'SANDBOX_STOPPED',
      `Stopped the sandbox of profile "${e.record.profile}" (pid ${e.record.pid}) that served ${e.record.base_url}.\n`,
    );
  }
  if (flags.json) {
    // One sandbox stopped: its fields, as before several could run; --all: the list.
    await printJson(io, flags.all ? { stopped } : { stopped: true, ...stopped[0]! });
  }
}
