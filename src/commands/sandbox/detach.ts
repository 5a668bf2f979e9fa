/**
 * `sandbox start --detach`: start `vouchers sandbox start …` (same flags and profile,
 * without --detach) as a detached background process logging to `sandboxes/PROFILE.log` in
 * the config directory, wait until it has written its pid file and its port answers, then
 * return.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { CliError, UsageError } from '../../core/errors/index.js';
import { packagePath } from '../../core/io/package-root.js';
import { notice } from '../../core/output/notice.js';
import { startSpinner } from '../../core/output/spinner.js';
import { isProcessAlive, nodeExecutable, signalProcess } from '../../core/io/processes.js';
import type { Factory } from '../../core/run/factory.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import { describeProfileWrite, prepareStart, printStarted } from './start.js';
import { LOCAL_PROFILE } from './local-profile.js';
import { ensureSandboxesDir, logFilePath, readPidFile, writePidFile, type PidRecord } from './pid-file.js';
import { childArgs, type StartOptions } from './start-options.js';

/** How long a background sandbox may take to answer. */
const READY_TIMEOUT_MS = 20_000;
const POLL_MS = 50;

/** The CLI's own entry point (bin/vouchers.js), from src/, dist/ or the bundle alike. */
function binPath(): string {
  return packagePath('bin', 'vouchers.js');
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What the child (and another start of its profile, sharing the log) wrote to the log since `offset`. */
function logSince(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8').trim();
  } catch {
    return '';
  }
}

/** The last lines of a log's text. */
const lastLines = (text: string): string => text.split('\n').slice(-8).join('\n');

async function answers(url: string, token: string | undefined, signal: AbortSignal): Promise<boolean> {
  try {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const res = await fetch(url, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(1_000)]) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/**
 * The error a sandbox started in the background printed before it stopped, as its message
 * and hint (`Error: …` and `  hint      …` lines, as the CLI prints errors without colour),
 * after whatever another start of the same profile wrote before it into their shared log,
 * or undefined when its output is not one such error.
 */
export function childError(said: string): { message: string; hint?: string } | undefined {
  const all = said.trim().split('\n');
  // Lines before it are another start's of the same profile (they share its log).
  const at = all.findIndex((l) => l.startsWith('Error: '));
  const lines = at < 0 ? all : all.slice(at);
  const first = /^Error: (.+)$/.exec(lines[0] ?? '');
  if (!first || lines.filter((l) => l.startsWith('Error: ')).length !== 1) return undefined;
  // The message may go on over the lines before its labelled ones (`  hint      …`, `  code      …`).
  const labelled = (l: string) => /^ {2}[a-z_]+ {2,}\S/.test(l);
  const end = lines.findIndex((l, i) => i > 0 && labelled(l));
  const message = [first[1]!, ...lines.slice(1, end < 0 ? lines.length : end)].join('\n');
  const hint = lines.map((l) => /^ {2}hint {6}(.+)$/.exec(l)?.[1]).find((h) => h !== undefined);
  return hint === undefined ? { message } : { message, hint };
}

export async function runDetached(f: Factory, options: StartOptions): Promise<void> {
  const { io, clock } = f;
  const store = await f.config();
  // The same checks as in the foreground, before anything starts; the port chosen is given to it.
  const { o } = prepareStart(f, store, options);
  const currentBefore = store.currentName();
  const hadProfile = store.get(o.profile) !== undefined;

  ensureSandboxesDir(store.dir);
  const logFile = logFilePath(store.dir, o.profile);
  const offset = sizeOf(logFile);
  const fd = openSync(logFile, 'a', 0o600);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  let pid: number | undefined;
  let onExit: () => void = () => undefined;
  const exitSeen = new Promise<void>((resolve) => {
    onExit = resolve;
  });
  try {
    const child = spawn(nodeExecutable(), [binPath(), ...childArgs(o)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      cwd: io.cwd,
      env: { ...io.env, NO_COLOR: '1' },
    });
    child.once('error', (e) => {
      spawnError = e;
    });
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      onExit();
    });
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(fd);
  }

  const deadline = clock.now() + READY_TIMEOUT_MS;
  let record: PidRecord | undefined;
  // Loading the sandbox takes a moment: a spinner on a terminal until it answers.
  const spinner = await startSpinner(io, 'Starting the sandbox in the background…', { quiet: o.json, color: f.globals().color !== false });
  try {
    for (;;) {
      if (spawnError) throw new CliError('unexpected', `could not start the background sandbox: ${spawnError.message}`);
      if (exited || (pid !== undefined && !isProcessAlive(pid))) {
        // Gone before its exit event was seen: give the event a moment, for the exit code.
        if (!exited) await Promise.race([exitSeen, clock.sleep(1_000)]);
        const said = logSince(logFile, offset);
        // A usage error of the child (a port in use, a bad flag) is the user's to fix: shown
        // as its own message and hint, once, rather than quoted inside another error.
        const own = exited?.code === 2 ? childError(said) : undefined;
        if (own) throw new UsageError(own.message, own.hint ?? 'fix the flags and start it again');
        const why = said ? `:\n${lastLines(said)}` : ` (exit ${exited?.code ?? exited?.signal ?? 'unknown'})`;
        const message = `the background sandbox stopped at once${why}`;
        if (exited?.code === 2) throw new UsageError(message, 'fix the flags above and start it again');
        throw new CliError('unexpected', message, `see ${logFile}`);
      }
      const seen = readPidFile(store.dir, o.profile)?.record;
      if (seen && seen.pid === pid && (await answers(seen.admin_url, store.get(seen.profile)?.admin_token, io.signal))) {
        record = seen;
        break;
      }
      if (clock.now() > deadline) {
        if (pid !== undefined) signalProcess(pid, 'SIGTERM');
        throw new CliError('network', `the background sandbox did not answer within ${READY_TIMEOUT_MS / 1000}s`, `see ${logFile}`);
      }
      await clock.sleep(POLL_MS, io.signal);
    }
  } finally {
    spinner.stop();
  }

  record = { ...record, log_file: logFile };
  writePidFile(store.dir, record);
  const local = store.get(o.profile);
  await printStarted(
    f,
    {
      base_url: record.base_url,
      admin_url: record.admin_url,
      api_key: local?.api_key ?? '',
      admin_token: local?.admin_token ?? '',
      ...(record.partner_id ? { partner_id: record.partner_id } : {}),
      profile: record.profile,
      pid: record.pid,
      host: record.host,
      port: record.port,
      ...(record.dialect ? { dialect: record.dialect } : {}),
      log_file: logFile,
    },
    o.json,
  );
  // With --json, stderr carries JSON lines only: these are notices there.
  const format = o.json ? 'json' : 'table';
  notice(
    io,
    { format },
    'PROFILE_WRITTEN',
    describeProfileWrite(
      {
        name: o.profile,
        refreshed: hadProfile,
        madeCurrent: currentBefore === undefined && store.currentName() === o.profile,
        alreadyCurrent: currentBefore === o.profile,
      },
      store.path,
    ),
  );
  notice(
    io,
    { format },
    'SANDBOX_DETACHED',
    `Sandbox running in the background (pid ${record.pid}); requests are logged to ${logFile}.\nCheck it with: vouchers sandbox status   Stop it with: vouchers sandbox stop${o.profile === LOCAL_PROFILE ? '' : ` --profile ${shellQuote(o.profile)}`}\n`,
  );
}
