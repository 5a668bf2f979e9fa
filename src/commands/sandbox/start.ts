/**
 * `vouchers sandbox start`: run the local sandbox in the foreground (one stderr line per
 * request, Ctrl-C/SIGTERM stop it cleanly), or in the background with --detach. Prints the
 * URLs, the API key and the admin token; the API secret goes into its profile only (`local`,
 * or --profile NAME: one sandbox per profile, each with its pid file and log).
 */
import { ConfigError, UsageError } from '../../core/errors/index.js';
import { batchedOutput } from '../../core/io/batched-output.js';
import { err } from '../../core/io/io.js';
import { docPath } from '../../core/io/package-root.js';
import type { ConfigStore } from '../../core/config/types.js';
import { currentPid } from '../../core/io/processes.js';
import { ownerLockHolder, takeOwnerLock, type OwnerLock, type OwnerLockHolder } from '../../core/io/owner-lock.js';
import { notice } from '../../core/output/notice.js';
import { resolveOutput } from '../../core/output/options.js';
import { printRecord } from '../../core/output/print.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import type { SandboxHandle } from '../../sandbox/index.js';
import { refuseForeignProfile, reusableCredentials, strandedProfiles, writeLocalProfile, type ProfileWrite } from './local-profile.js';
import { ensureSandboxesDir, removeOwnPidFiles, startLockPath, writePidFile, type PidEntry } from './pid-file.js';
import { describeSandbox, runningSandboxes, staleNote } from './running.js';
import { buildStartOptions, type StartFlags, type StartOptions } from './start-options.js';

/** What `start` prints on stdout (never a secret). */
export interface StartedInfo {
  base_url: string;
  admin_url: string;
  api_key: string;
  /** Bearer token of the operator surface (not a partner secret: it only reaches this local sandbox). */
  admin_token: string;
  partner_id?: string;
  profile: string;
  pid: number;
  host: string;
  port: number;
  /** The API dialect it speaks: decisions or document. */
  dialect?: string;
  log_file?: string;
}

export async function printStarted(f: Factory, info: StartedInfo, json: boolean): Promise<void> {
  const settings = resolveOutput(f.io, { json }, f.globals().color !== false);
  const fields = [
    { label: 'base_url', value: info.base_url },
    { label: 'admin_url', value: info.admin_url },
    { label: 'api_key', value: info.api_key },
    { label: 'admin_token', value: info.admin_token },
    { label: 'profile', value: info.profile },
    ...(info.dialect ? [{ label: 'dialect', value: info.dialect }] : []),
    { label: 'pid', value: info.pid },
    ...(info.log_file ? [{ label: 'log_file', value: info.log_file }] : []),
  ];
  await printRecord(f.io, info, fields, settings);
}

export function describeProfileWrite(w: ProfileWrite, file: string): string {
  const verb = w.refreshed ? 'Refreshed' : 'Wrote';
  const current = w.madeCurrent
    ? `; "${w.name}" is now the default profile, so the next command uses it`
    : w.alreadyCurrent
      ? `; it is the current profile, so the next command uses it`
      : `; use it with --profile ${w.name} (or: vouchers profiles use ${w.name})`;
  return `${verb} profile "${w.name}" in ${file} (the API secret is saved there, not printed)${current}\n`;
}

function portInUse(o: StartOptions, running: PidEntry[]): UsageError {
  const holder = running.find((e) => e.record.port === o.port);
  return new UsageError(
    `port ${o.port} on ${o.host} is already in use${holder ? ` by the sandbox of profile ${describeSandbox(holder)}` : ''}`,
    `choose another port with --port ${o.port < 65535 ? o.port + 1 : o.port - 1}, or --port 0 for any free one${holder ? `; or stop that sandbox: vouchers sandbox stop --profile ${shellQuote(holder.record.profile)}` : ''}`,
  );
}

/** Hosts that may share a port: another address, unless either listens on every address. */
function sameAddress(a: string, b: string): boolean {
  const any = (h: string) => h === '0.0.0.0' || h === '::' || h === '[::]';
  return a === b || any(a) || any(b);
}

/**
 * The checks before a sandbox starts, in the foreground or for --detach: pid files of
 * sandboxes gone are removed (with a note); a sandbox of the same profile, of the same
 * --state file or on the port given is refused, and so is a profile no sandbox wrote. Without --port, the port is
 * the first from 4010 that no running sandbox of this folder has. Returns the options with
 * that port, and the sandboxes running.
 */
function checkStart(f: Factory, store: ConfigStore, o: StartOptions): { o: StartOptions; running: PidEntry[] } {
  const format = o.json ? 'json' : 'table';
  const { running, removed } = runningSandboxes(store.dir);
  for (const e of removed) notice(f.io, { format }, 'STALE_PID_FILE', staleNote(e));
  const same = running.find((e) => e.record.profile === o.profile && e.record.pid !== currentPid());
  if (same) {
    throw new UsageError(
      `a sandbox already runs for the profile ${describeSandbox(same)}`,
      `use it as it is, or stop it first: vouchers sandbox stop --profile ${shellQuote(o.profile)}; to run another one beside it, give it a profile of its own: vouchers sandbox start --profile NAME`,
    );
  }
  // Each would overwrite what the other saved: the orders of one lost at its next start.
  const sharing = o.stateFile === undefined ? undefined : running.find((e) => e.record.state_file === o.stateFile);
  if (sharing) {
    throw new UsageError(
      `the sandbox of profile ${describeSandbox(sharing)} keeps its state in ${o.stateFile}: two sandboxes writing one state file would each overwrite what the other saved`,
      `give this one a --state file of its own, or stop that one first: vouchers sandbox stop --profile ${shellQuote(sharing.record.profile)}`,
    );
  }
  refuseForeignProfile(store, o.profile);
  if (o.portGiven) {
    if (o.port !== 0 && running.some((e) => e.record.port === o.port && sameAddress(e.record.host, o.host))) throw portInUse(o, running);
    return { o, running };
  }
  const taken = new Set(running.map((e) => e.record.port));
  let port = o.port;
  while (taken.has(port) && port < 65535) port++;
  const holder = running.find((e) => e.record.port === o.port);
  if (holder) {
    notice(
      f.io,
      { format },
      'PORT_CHOSEN',
      `Port ${o.port} is taken by the sandbox of profile ${describeSandbox(holder)}: this one listens on ${port} (--port chooses another).\n`,
    );
  }
  return { o: { ...o, port }, running };
}

/**
 * Another start of this profile is under way (it holds the profile's start lock, and has not
 * written its pid file yet): refused as a sandbox already running is, naming its pid and port.
 */
function startingElsewhere(profile: string, holder: OwnerLockHolder | undefined): UsageError {
  const port = typeof holder?.extra.port === 'number' && holder.extra.port !== 0 ? `, port ${holder.extra.port}` : '';
  const who = holder ? ` (pid ${holder.pid}${port})` : '';
  return new UsageError(
    `a sandbox for the profile "${profile}" is being started right now by another command${who}`,
    `wait for it and use it (vouchers sandbox status --profile ${shellQuote(profile)}), or stop it once it runs: vouchers sandbox stop --profile ${shellQuote(profile)}; to run another one beside it, give it a profile of its own: vouchers sandbox start --profile NAME`,
  );
}

/**
 * The checks of prepareStart, holding the profile's start lock (startLockPath) when `hold`:
 * the caller releases it once the pid file is written (or the start failed). Without
 * `hold` (--detach, whose background process takes it), a start under way is still refused.
 */
export function prepareStart(
  f: Factory,
  store: ConfigStore,
  o: StartOptions,
  hold = false,
): { o: StartOptions; running: PidEntry[]; lock?: OwnerLock } {
  ensureSandboxesDir(store.dir);
  const lockPath = startLockPath(store.dir, o.profile);
  if (!hold) {
    const busy = ownerLockHolder(lockPath);
    if (busy && busy.holder?.pid !== currentPid()) throw startingElsewhere(o.profile, busy.holder);
    return checkStart(f, store, o);
  }
  const taken = takeOwnerLock(lockPath, { profile: o.profile });
  if (!taken.ok) throw startingElsewhere(o.profile, taken.holder);
  try {
    const checked = checkStart(f, store, o);
    taken.lock.update({ port: checked.o.port });
    return { ...checked, lock: taken.lock };
  } catch (e) {
    taken.lock.release();
    throw e;
  }
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** `o`: the flags checked into options (buildStartOptions), when the caller has done it already. */
export async function run(f: Factory, flags: StartFlags, o: StartOptions = buildStartOptions(flags, f.io.cwd)): Promise<void> {
  if (o.detach) {
    const { runDetached } = await import('./detach.js');
    return runDetached(f, o);
  }
  const store = await f.config();
  // One sandbox per profile: its pid file, its log and its profile are its own. Its start
  // lock is held until the pid file is written: another start of it meanwhile is refused.
  const prepared = prepareStart(f, store, o, true);
  o = prepared.o;
  try {
    await serve(f, store, o, prepared.lock);
  } finally {
    prepared.lock?.release();
  }
}

/** Start the sandbox, write its profile and pid file (then release `lock`), and run until stopped. */
async function serve(f: Factory, store: ConfigStore, o: StartOptions, lock: OwnerLock | undefined): Promise<void> {
  const { io } = f;
  const reuse = reusableCredentials(store, o.profile);
  // One line per request: written once per turn of the event loop, not once per line.
  const output = batchedOutput();
  let sb: SandboxHandle;
  try {
    // Loaded here, not with this file: --detach (above) starts another process and shows
    // its spinner at once, without loading the sandbox itself.
    const { startSandbox } = await import('../../sandbox/index.js');
    sb = await startSandbox({
      port: o.port,
      host: o.host,
      seed: o.seed,
      timeScale: o.timeScale,
      signingPath: o.signingPath,
      enablePlanned: o.enablePlanned,
      dialect: o.dialect,
      faultRate: o.faultRate,
      stateFile: o.stateFile,
      limits: { ordersPerMinute: o.ordersPerMinute, generalPerHour: o.generalPerHour },
      ...reuse,
      log: (line) => output.write(io.stderr, `${new Date(f.clock.now()).toISOString().slice(11, 19)} ${line}\n`),
    });
  } catch (e) {
    if (e instanceof ConfigError && /already in use/.test(e.message)) throw portInUse(o, runningSandboxes(store.dir).running);
    if (e instanceof ConfigError) throw new UsageError(e.message, e.hint);
    throw e;
  }
  const pid = currentPid();
  // A start refused meanwhile names the port this one listens on (--port 0: known only now).
  lock?.update({ port: sb.port });
  try {
    const written = writeLocalProfile(store, sb, o);
    const startedAt = new Date(f.clock.now()).toISOString();
    writePidFile(store.dir, {
      pid,
      port: sb.port,
      host: sb.host,
      base_url: sb.baseUrl,
      admin_url: sb.adminUrl,
      started_at: startedAt,
      profile: written.name,
      partner_id: sb.partnerId,
      dialect: sb.dialect,
      ...(o.stateFile === undefined ? {} : { state_file: o.stateFile }),
    });
    lock?.release();
    await printStarted(
      f,
      {
        base_url: sb.baseUrl,
        admin_url: sb.adminUrl,
        api_key: sb.apiKey,
        admin_token: sb.adminToken,
        partner_id: sb.partnerId,
        profile: written.name,
        pid,
        host: sb.host,
        port: sb.port,
        dialect: sb.dialect,
      },
      o.json,
    );
    err(io, describeProfileWrite(written, store.path));
    for (const s of strandedProfiles(store, sb, o.profile))
      err(
        io,
        `Warning: profile "${s.name}" points at this sandbox, which does not accept its API key ${s.apiKey} (unknown, revoked, or with another secret): its calls will fail 401. ${o.stateFile ? '' : 'Partners and keys made with sandbox admin live only while the sandbox runs, unless it is started with --state FILE. '}Make a new one (vouchers sandbox admin partners create --show-secret) and give the profile its key and secret (vouchers profiles set ${shellQuote(s.name)} api_key KEY; vouchers profiles set ${shellQuote(s.name)} api_secret --stdin).\n`,
      );
    if (sb.dialect !== 'decisions')
      err(
        io,
        `It speaks the ${sb.dialect} dialect: the API document where it shows something, other guesses than ours elsewhere (${docPath('sandbox.md', io.cwd)}).\n`,
      );
    err(io, `Sandbox ready on ${sb.baseUrl}. One line per request below; Ctrl-C stops it.\n`);
    await waitForAbort(io.signal);
    output.flush();
    err(io, 'Stopping the sandbox…\n');
    // Under whatever name its profile has by now (profiles rename moves the pid file).
    removeOwnPidFiles(store.dir, pid);
  } finally {
    await sb.close();
    output.flush();
  }
  err(io, 'Sandbox stopped.\n');
}
