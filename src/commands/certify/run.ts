/**
 * `vouchers certify`: open the environment (the embedded sandbox, or the profile's server),
 * run the checklist with a live reporter, write every report asked for, and exit by the
 * verdict: 0 passed, 9 a check failed, 2 usage or a production profile, 130 Ctrl-C. The
 * sandbox and listener it started are stopped whatever happens.
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import { makeDirSync } from '../../core/io/make-dir.js';
import { dirname, resolve } from 'node:path';
import { CHECKLIST } from '../../certify/checklist.js';
import { openEnvironment } from '../../certify/environment.js';
import { missingProductsWarning, reportProducts } from '../../certify/products.js';
import { buildReport } from '../../certify/report.js';
import { createPrettyReporter, renderReport } from '../../certify/reporters/index.js';
import { formatDuration as formatRan } from '../../certify/reporters/common.js';
import { LEFT_OUT, runChecklist, runWarnings, skipReason } from '../../certify/runner.js';
import type { CheckDef } from '../../certify/types.js';
import { ApiError, CertificationError, CliError, InterruptedError, NetworkError, UsageError } from '../../core/errors/index.js';
import { formatDuration } from '../../core/http/duration.js';
import { out } from '../../core/io/io.js';
import { resolveOutput } from '../../core/output/options.js';
import { jsonDocument } from '../../core/output/json-text.js';
import { hintFor } from '../../core/output/error.js';
import { noticeFor } from '../../core/output/notice.js';
import { printJson, printList, type Column } from '../../core/output/print.js';
import type { Factory, GlobalOptions } from '../../core/run/factory.js';
import { VERSION } from '../../core/version.js';
import { buildOptions, type CertifyFlags, type CertifyOptions } from './options.js';
import { writeFileAtomic } from '../../core/io/atomic-file.js';
import { counted } from '../../core/output/counted.js';

const NEEDS: Record<string, string> = { admin: 'operator surface', webhooks: 'webhooks', target: '--webhook-target' };

const LIST_COLUMNS: Column<CheckDef>[] = [
  { field: 'id', header: 'ID' },
  // A title cut to a few words says nothing: the mostly empty NEEDS column is left out first.
  { field: 'title', header: 'TITLE', shrink: true, readable: 24 },
  { field: 'needs', header: 'NEEDS', get: (c) => (c.needs ?? []).map((n) => NEEDS[n] ?? n).join(', '), priority: 1 },
  { field: 'proves', header: 'PROVES', shrink: true, priority: 0, wide: true },
];

async function printChecklist(f: Factory, flags: CertifyFlags): Promise<void> {
  const settings = resolveOutput(f.io, { json: flags.json }, f.globals().color !== false);
  const rows = CHECKLIST.map((c) => ({ id: c.id, title: c.title, needs: c.needs ?? [], required: c.required !== false, proves: c.proves }));
  if (settings.format === 'json') {
    await printJson(f.io, rows);
    return;
  }
  await printList(f.io, [...CHECKLIST], LIST_COLUMNS, settings);
}

/** The file extension of each report format, for examples. */
const REPORT_EXTENSIONS: Record<string, string> = { junit: 'xml', json: 'json', markdown: 'md' };

/** A report file, written whole or not at all (a temporary file renamed into place). */
async function writeReportFile(cwd: string, name: string, file: string, text: string): Promise<string> {
  const path = resolve(cwd, file);
  try {
    makeDirSync(dirname(path), 0o777);
    await writeFileAtomic(path, text, { mode: 0o644 });
  } catch (e) {
    throw reportFileError(path, e, name);
  }
  return path;
}

/** `name`: the reporter (junit, json, markdown), repeated in the example of the hint. */
function reportFileError(path: string, e: unknown, name: string): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    EISDIR: 'it is a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOTDIR: 'a part of the path is a file, not a folder',
    ENOENT: 'no file can be created there',
  };
  const why = (code && words[code]) ?? code ?? String(e);
  return new UsageError(
    `cannot write the report to ${path}: ${why}`,
    `give a file in a folder you can write to, e.g. --reporter ${name}=reports/certify.${REPORT_EXTENSIONS[name] ?? name}`,
  );
}

/**
 * Before the run: every report file can be written (its folder made, a file created and
 * removed there, the path not a folder), so a bad path is exit 2 at once, not an error after
 * a whole run.
 */
async function checkReportFiles(cwd: string, options: CertifyOptions): Promise<void> {
  for (const r of options.reporters.documents) {
    if (r.file === null) continue;
    const path = resolve(cwd, r.file);
    try {
      makeDirSync(dirname(path), 0o777);
      if ((await stat(path).catch(() => undefined))?.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
      const probe = `${path}.${process.pid}.probe`;
      await writeFile(probe, '', { flag: 'wx' });
      await rm(probe, { force: true });
    } catch (e) {
      throw reportFileError(path, e, r.name);
    }
  }
}

/** The report in each format asked for (--reporter json=FILE, junit=FILE, or on stdout). */
async function writeDocuments(f: Factory, options: CertifyOptions, report: ReturnType<typeof buildReport>): Promise<void> {
  const io = f.io;
  for (const r of options.reporters.documents) {
    // On stdout, the JSON report is data like any command's --json (--jmespath applies).
    const text = r.file === null && r.name === 'json' ? jsonDocument(io, report, 2) : renderReport(r.name, report);
    if (r.file === null) await out(io, text);
    else {
      const path = await writeReportFile(io.cwd, r.name, r.file, text);
      noticeFor(f, 'REPORT_WRITTEN', `Wrote the ${r.name} report to ${path}`);
    }
  }
}

/**
 * With --sandbox the checks run against the embedded sandbox: a --profile or --base-url on
 * the same line names a server that is not certified, which the report says.
 */
function sandboxIgnores(options: CertifyOptions, globals: GlobalOptions): string[] {
  if (options.mode !== 'sandbox') return [];
  const said: string[] = [];
  if (globals.profile !== undefined)
    said.push(
      `--sandbox certifies the embedded sandbox, not profile "${globals.profile}"${options.webhookTarget !== undefined ? ' (the profile gave only the webhook secret for --webhook-target)' : ''}; to certify its server, leave out --sandbox`,
    );
  if (globals.baseUrl !== undefined)
    said.push(
      `--sandbox certifies the embedded sandbox: --base-url ${globals.baseUrl} was not used; to certify that server, leave out --sandbox`,
    );
  return said;
}

/** What --timeout stopped: how many checks did not run, and the one it cut while it ran. */
function stopWords(notRun: number, cut: string | undefined): string[] {
  return [...(notRun > 0 || !cut ? [`${counted(notRun, 'check')} did not run`] : []), ...(cut ? [`${cut} was cut while it ran`] : [])];
}

export async function run(f: Factory, flags: CertifyFlags): Promise<void> {
  // The root owns --timeout (per request); on this command it also bounds the whole run.
  const options: CertifyOptions = buildOptions({ ...flags, timeout: flags.timeout ?? f.globals().timeout }, CHECKLIST);
  if (options.list) {
    await printChecklist(f, flags);
    return;
  }
  const { io } = f;
  const profile = await f.profile();
  if (profile.production && (options.mode === 'profile' || f.globals().profile !== undefined)) {
    throw new UsageError(
      `profile "${profile.name}" is marked production: certification runs against a sandbox only`,
      'run it against your sandbox profile (--profile NAME), or the embedded sandbox (--sandbox)',
    );
  }
  if (options.webhookTarget !== undefined && !profile.webhook_secret) {
    // No profile saved and none named: there is no "default" to blame, or to save it in.
    const none = !profile.exists && (profile.sources.name ?? 'default') === 'default';
    throw new UsageError(
      `--webhook-target needs the webhook signing secret your receiver verifies with, and ${none ? 'no profile or VOUCHERS_WEBHOOK_SECRET gives one' : `profile "${profile.name}" has none`}`,
      none
        ? 'set it for this run: VOUCHERS_WEBHOOK_SECRET=whsec_… vouchers certify …'
        : `set it with VOUCHERS_WEBHOOK_SECRET, or save it: vouchers profiles set ${profile.name} webhook_secret --stdin`,
    );
  }
  if (options.mode === 'profile' && !profile.base_url) {
    throw new UsageError(
      'no server to certify: there is no profile with a base URL',
      'certify the embedded sandbox with --sandbox, or pick a profile with --profile NAME (vouchers sandbox start writes a "local" one)',
    );
  }

  await checkReportFiles(io.cwd, options);

  // The whole run: Ctrl-C, or the --timeout running out.
  const deadline = new AbortController();
  // Its reason names it: a request it stops says `cut by --timeout 5m while GET /webhooks was in flight`.
  const timer = setTimeout(
    () => deadline.abort(new InterruptedError(`cut by --timeout ${formatDuration(options.timeoutMs)}`)),
    options.timeoutMs,
  );
  const signal = AbortSignal.any([io.signal, deadline.signal]);
  const color = f.globals().color !== false;
  const pretty = options.reporters.pretty ? createPrettyReporter({ io, stream: options.reporters.pretty, color }) : undefined;
  const startedAt = f.clock.now();
  const requestLog = await f.requestLog();
  // A run against a profile logs its requests so that a trace ID of the report is found with
  // `vouchers log --trace`: a log that cannot be written is said once, after the run (not
  // among the live lines of the pretty report).
  let logFailure: string | undefined;
  if (options.mode === 'profile')
    requestLog.onError?.((e) => {
      logFailure ??= e.message;
    });
  let env;
  try {
    env = await openEnvironment({
      mode: options.mode,
      profile,
      clock: f.clock,
      ids: f.ids,
      signal,
      listenPort: options.listenPort,
      publicUrl: options.publicUrl,
      webhookTarget: options.webhookTarget,
      products: options.products,
      // Reproduce commands reach the same server as given: the profile when it is saved (a run
      // on credentials from the environment alone has none, and `--profile default` would be
      // refused), and the --base-url the run was given.
      cliPrefix:
        options.mode === 'profile'
          ? [
              ...(profile.exists ? ['--profile', profile.name] : []),
              ...(profile.sources.base_url === 'flag' && profile.base_url ? ['--base-url', profile.base_url] : []),
            ]
          : [],
      requestLog,
      // A wait of a second or more is said when it starts, in every mode (a CI log too).
      notice: (message) => (pretty ? pretty.note(message) : noticeFor(f, 'RETRY_WAIT', `waiting: ${message}`)),
    });
  } catch (e) {
    clearTimeout(timer);
    // The --timeout running out while the run starts is not Ctrl-C: the run failed (exit 9).
    const cutAtStart = deadline.signal.aborted && !io.signal.aborted && e instanceof InterruptedError;
    // A CI job reads the report: one that says the run could not start is written, then the
    // error ends the run with its own exit code (a server that cannot be reached: 7).
    if (options.mode === 'profile' && e instanceof CliError && !io.signal.aborted && profile.base_url) {
      // The hint as the error on stderr gives it: its commands name the same --profile.
      const startHint = hintFor(e, { profile: f.globals().profile, baseUrl: f.globals().baseUrl });
      const report = buildReport({
        startedAt,
        finishedAt: f.clock.now(),
        target: {
          mode: 'profile',
          profile: profile.name,
          base_url: profile.base_url,
          api_key: profile.api_key ?? '',
          signing_path: profile.signing_path,
          webhook_url: null,
          webhook_target: options.webhookTarget ?? null,
        },
        version: VERSION,
        warnings: [
          cutAtStart
            ? `the run stopped after --timeout ${formatDuration(options.timeoutMs)} before it could start, no check ran: ${e.message}`
            : `the run could not start, no check ran: ${e.message}`,
        ],
        // One failed entry, so a JUnit reader that counts failures does not see a green empty run.
        results: [
          {
            id: 'run.start',
            title: 'The run could start against the server',
            proves: 'the server could be reached and the run set up',
            status: 'fail',
            required: true,
            duration_ms: Math.round(f.clock.now() - startedAt),
            message: startHint ? `${e.message} (${startHint})` : e.message,
            trace_ids:
              e instanceof ApiError || e instanceof NetworkError || e instanceof InterruptedError
                ? [e.traceId].filter((t): t is string => Boolean(t))
                : [],
            requests: [],
            warnings: [],
          },
        ],
      });
      // The pretty report says it too, on its stream: a run never ends with nothing there.
      await pretty?.finish(report);
      await writeDocuments(f, options, report);
    }
    if (cutAtStart)
      throw new CertificationError(
        `certification did not start within ${formatDuration(options.timeoutMs)}: ${e.message}${e.traceId ? ` (trace ID ${e.traceId})` : ''}`,
        'give the run more time (e.g. --timeout 10m)',
        e.traceId,
      );
    throw e;
  }
  let results;
  let restoreFailure: string | undefined;
  // The check --timeout stopped while it ran: failed with the requests it made, not "did not run".
  let cut: string | undefined;
  try {
    const recorder = env.recorder;
    const drifts = env.drifts;
    results = await runChecklist(
      {
        checks: CHECKLIST,
        only: options.only,
        skip: options.skip,
        needs: env.needs,
        context: { ...env.context, requests: () => recorder.all, drifts: () => drifts },
        signal,
        defaultTimeoutMs: 60_000,
        now: () => f.clock.now(),
        reproduce: (r) => env.context.raw.reproduce({ ...r, path: r.path.replace(/^\/api\/v1(?=\/)/, '') }),
        onStart: (c) => pretty?.start(c),
        onResult: (r) => pretty?.result(r),
        cutBy: (check, ranMs) => {
          if (!deadline.signal.aborted || io.signal.aborted) return undefined;
          cut = check.id;
          return `cut by --timeout ${formatDuration(options.timeoutMs)} after running ${formatRan(ranMs)}: the run stopped before this check finished`;
        },
      },
      recorder,
    );
  } finally {
    clearTimeout(timer);
    // The partner's endpoint goes back before anything else, also after a failure or Ctrl-C.
    try {
      const restored = await env.restoreWebhook();
      if (restored) noticeFor(f, 'WEBHOOK_RESTORED', restored);
    } catch (e) {
      restoreFailure = e instanceof Error ? e.message : String(e);
      noticeFor(f, 'WEBHOOK_NOT_RESTORED', `Warning: ${restoreFailure}\n`);
    }
    await env.close();
  }
  if (logFailure !== undefined)
    noticeFor(
      f,
      'REQUEST_LOG_NOT_WRITTEN',
      `Warning: the request log ${requestLog.path} could not be written (${logFailure}): this run's requests are not logged, so vouchers log --trace will not find the report's trace IDs`,
    );
  if (io.signal.aborted) {
    await pretty?.stop();
    throw new InterruptedError(
      `certification interrupted: ${options.mode === 'sandbox' ? 'the sandbox and listener it started are stopped' : 'the listener it started is stopped'}; no report was written`,
    );
  }
  const warnings = runWarnings(results, env.recorder, {
    checks: CHECKLIST,
    webhooksExpected: env.needs.webhooks === true,
    eventsReceived: env.listener?.events.length ?? 0,
    deliveriesRefused: env.listener?.rejections,
    signatureRefused: env.listener?.refusedForSignature(),
    clockOffsetSeconds: env.context.shared.clockOffsetSeconds,
  });
  const timedOut = deadline.signal.aborted;
  // Every check a run cut by --timeout did not reach is in the reports as failed: a JUnit
  // reader must not see a short, green run. One --only/--skip left out, or whose need is not
  // met, is skipped with its reason as ever.
  const ran = new Set(results.map((r) => r.id));
  const notReached = timedOut ? CHECKLIST.filter((c) => !ran.has(c.id)) : [];
  const skipWhy = (c: CheckDef) => skipReason(c, { only: options.only, skip: options.skip, needs: env.needs });
  const unreached = notReached.filter((c) => skipWhy(c) === undefined);
  for (const check of notReached) {
    const skipped = skipWhy(check);
    results.push({
      id: check.id,
      title: check.title,
      proves: check.proves,
      required: check.required !== false,
      status: skipped === undefined ? 'fail' : 'skip',
      duration_ms: 0,
      message: skipped ?? `did not run: the run stopped after --timeout ${formatDuration(options.timeoutMs)}`,
      trace_ids: [],
      requests: [],
      warnings: [],
    });
  }
  const leftOut = results.filter((r) => r.status === 'skip' && r.message === LEFT_OUT).length;
  const products = reportProducts(env.context.fixtures, env.context.shared.products);
  const wantProducts = missingProductsWarning(products);
  if (wantProducts) warnings.push(wantProducts);
  if (restoreFailure) warnings.push(restoreFailure);
  warnings.push(...sandboxIgnores(options, f.globals()));
  if (leftOut > 0)
    warnings.push(`${counted(leftOut, 'check was', 'checks were')} left out by --only/--skip: this is not a full certification`);
  if (timedOut)
    warnings.unshift(
      `the run stopped after --timeout ${formatDuration(options.timeoutMs)}: ${stopWords(unreached.length, cut).join(', and ')}`,
    );
  // A run in which no check passed proves nothing: not a pass (e.g. --only naming a check
  // whose prerequisite was left out, so it was skipped).
  const noneRan = !timedOut && results.every((r) => r.status === 'skip');
  if (noneRan) warnings.unshift('no check ran: every check was skipped, so nothing was certified');
  const report = buildReport({ startedAt, finishedAt: f.clock.now(), target: env.target, products, version: VERSION, warnings, results });
  if (timedOut || noneRan) report.result = 'failed';
  await pretty?.finish(report);
  await writeDocuments(f, options, report);
  if (report.result === 'failed') {
    const notRun = unreached.length;
    const failing = results.filter((r) => r.status === 'fail' && r.id !== cut && !unreached.some((c) => c.id === r.id));
    const failed = failing.map((r) => r.id);
    // Checks of the partner's own receiver (target.*) send to it, not to the API: no trace IDs.
    const traced = failing.some((r) => r.trace_ids.length > 0);
    // Shown above only by the pretty reporter; otherwise in the report (JSON, JUnit, Markdown) alone.
    const explain = `each failure ${pretty ? 'above' : 'in the report'} shows what was expected, what came${traced ? ', its trace IDs' : ''} and a command that repeats the request`;
    if (noneRan) {
      const reasons = [...new Set(results.map((r) => r.message))].slice(0, 3).join('; ');
      throw new CertificationError(
        `certification ran no check: all ${results.length} were skipped (${reasons})`,
        'run every check (no --only/--skip), or add the checks the selected ones need to --only',
      );
    }
    throw new CertificationError(
      timedOut
        ? `certification did not finish within ${formatDuration(options.timeoutMs)}: ${stopWords(notRun, cut).join(', ')}${failed.length ? `, and ${failed.length} failed: ${failed.join(', ')}` : ''}`
        : `certification failed: ${failed.length} of ${results.length} checks failed (${failed.join(', ')})`,
      timedOut && failed.length === 0 ? 'give the run more time (e.g. --timeout 10m), or fewer checks (--only)' : explain,
      // The request the run stopped: the last the cut check made. Otherwise the first failing
      // check's request (its last, whose answer failed it), else the first failing check's
      // that has one: what a script quotes to support.
      timedOut
        ? results.find((r) => r.id === cut)?.trace_ids.at(-1)
        : (failing[0]?.trace_ids.at(-1) ?? failing.find((r) => r.trace_ids.length > 0)?.trace_ids.at(-1)),
    );
  }
}
