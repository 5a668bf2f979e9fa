/**
 * Runs the checklist in order: each check gets the context, a deadline and the run's
 * signal; what it requests is recorded under it (trace IDs); a thrown CheckFailure is a
 * fail with expected/actual, a CheckSkip a skip with its reason, anything else a fail with
 * the error's message. Checks whose needs are not met are skipped with the reason. Ctrl-C
 * stops at once: the check in progress is abandoned and no other starts. A stop the reports
 * show (the run's --timeout) fails the check in progress as cut, with the requests it made.
 */
import { ApiError, NetworkError } from '../core/errors/index.js';
import type { SignatureRefusal } from './listener.js';
import { CheckFailure, CheckSkip } from './outcome.js';
import type { CheckContext, CheckDef, CheckOutcome, CheckResult, Need, RecordedRequest } from './types.js';
import { counted as countedNoun } from '../core/output/counted.js';

export interface RunOptions {
  checks: readonly CheckDef[];
  /** Ids (or group prefixes like `signing`) to run; all when empty. */
  only?: readonly string[];
  /** Ids (or group prefixes) to leave out. */
  skip?: readonly string[];
  /** Needs that are met; the others carry the reason they are not. */
  needs: Partial<Record<Need, true | string>>;
  /** The context, without `warn` (the runner adds it per check). */
  context: Omit<CheckContext, 'warn' | 'signal'>;
  signal: AbortSignal;
  /** Default deadline of a check (ms). */
  defaultTimeoutMs: number;
  now: () => number;
  onStart?: (check: CheckDef) => void;
  onResult?: (result: CheckResult) => void;
  /**
   * Why the check in progress when the run stopped was cut, for a stop the reports show (the
   * run's --timeout): it is then a failure with the requests it made. Undefined (Ctrl-C): the
   * check is abandoned and nothing is recorded.
   */
  cutBy?: (check: CheckDef, ranMs: number) => string | undefined;
  /** A command that repeats a request (no secret in it), for failures on an unexpected answer. */
  reproduce?: (request: Repeatable) => string;
}

/** What a reproduce command repeats: the request line, its body as sent and its idempotency key. */
export interface Repeatable {
  method: string;
  /** With its query string. */
  path: string;
  body?: string;
  idempotencyKey?: string;
}

/** Where the requests of the current check are filed. */
export class Recorder {
  private current: RecordedRequest[] | undefined;
  readonly all: RecordedRequest[] = [];
  /** Query strings and bodies as sent, kept for reproduce commands and out of the report's request list. */
  private readonly sent = new WeakMap<RecordedRequest, { query: string; body?: string }>();
  record = (r: RecordedRequest, sent?: { query: string; body?: string }): void => {
    this.all.push(r);
    this.current?.push(r);
    if (sent !== undefined) this.sent.set(r, sent);
  };
  /** `r` as a reproduce command repeats it: with its query, body and idempotency key. */
  repeatable(r: RecordedRequest): Repeatable {
    const sent = this.sent.get(r);
    return {
      method: r.method,
      path: r.path + (sent?.query ?? ''),
      ...(sent?.body !== undefined ? { body: sent.body } : {}),
      ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key } : {}),
    };
  }
  begin(): RecordedRequest[] {
    this.current = [];
    return this.current;
  }
  end(): void {
    this.current = undefined;
  }
}

/** Whether `id` is named by one of `patterns` (an id, or a group: `signing` names `signing.*`). */
export function matches(id: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => p === id || id.startsWith(`${p}.`));
}

/** Why a check not selected is skipped. */
export const LEFT_OUT = 'left out by --only/--skip';

/** Whether --only and --skip keep the check `id`. */
export function isSelected(id: string, only: readonly string[] | undefined, skip: readonly string[] | undefined): boolean {
  return (!only?.length || matches(id, only)) && !matches(id, skip ?? []);
}

const NEED_WORDS: Record<Need, string> = {
  admin: 'the sandbox operator surface',
  webhooks: 'webhook deliveries reaching this machine',
  target: 'your webhook receiver (--webhook-target URL)',
};

/**
 * Why `check` is skipped before it starts: left out by --only/--skip, or a need not met (with
 * the reason); undefined when it runs.
 */
export function skipReason(check: CheckDef, options: Pick<RunOptions, 'only' | 'skip' | 'needs'>): string | undefined {
  if (!isSelected(check.id, options.only, options.skip)) return LEFT_OUT;
  const unmet = (check.needs ?? []).filter((n) => options.needs[n] !== true);
  if (unmet.length === 0) return undefined;
  return unmet
    .map((n) => `needs ${NEED_WORDS[n]}${typeof options.needs[n] === 'string' ? `: ${options.needs[n] as string}` : ''}`)
    .join('; ');
}

/**
 * Expected and actual for a check that stopped on an API error it did not expect (a 401
 * where an order was to be placed): the answer, and the request that got it, to repeat.
 */
function answerDetails(
  e: unknown,
  requests: readonly RecordedRequest[],
  recorder: Recorder,
  reproduce?: (request: Repeatable) => string,
): { expected?: string; actual?: string; reproduce?: string } {
  const status = (e as { status?: unknown }).status;
  const code = (e as { code?: unknown }).code;
  if (typeof status !== 'number') return {};
  const last = [...requests].reverse().find((r) => r.status === status) ?? requests.at(-1);
  return {
    expected: 'an answer that lets the check go on (HTTP 2xx)',
    actual: `HTTP ${status}${typeof code === 'string' && code !== '' ? ` ${code}` : ''}${last ? ` to ${last.method} ${last.path}` : ''}`,
    ...(last && reproduce ? { reproduce: reproduce(recorder.repeatable(last)) } : {}),
  };
}

/** How long a check cut by the run's stop is given to end, so that its requests stopped in flight are filed under it. */
const CUT_SETTLE_MS = 1_000;

/** Resolves when `p` settles, or after `ms` (a check that ignores the signal is not waited for). */
function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    p.then(
      () => resolve(),
      () => resolve(),
    ).finally(() => clearTimeout(timer));
  });
}

/** The trace IDs of `requests`, each once, in order. */
function traceIds(requests: readonly RecordedRequest[]): string[] {
  return [...new Set(requests.map((r) => r.trace_id).filter((t): t is string => typeof t === 'string' && t !== ''))];
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

export async function runChecklist(options: RunOptions, recorder: Recorder): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of options.checks) {
    if (options.signal.aborted) break;
    const required = check.required !== false;
    const base = { id: check.id, title: check.title, proves: check.proves, required };
    const why = skipReason(check, options);
    if (why !== undefined) {
      const result: CheckResult = { ...base, status: 'skip', duration_ms: 0, message: why, trace_ids: [], requests: [], warnings: [] };
      results.push(result);
      options.onResult?.(result);
      continue;
    }
    options.onStart?.(check);
    const requests = recorder.begin();
    const warnings: string[] = [];
    const started = options.now();
    const deadline = new AbortController();
    const timeoutMs = check.timeoutMs ?? options.defaultTimeoutMs;
    const signal = AbortSignal.any([options.signal, deadline.signal]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        deadline.abort(new CheckFailure(`did not finish within ${Math.round(timeoutMs / 1000)} s`));
        reject(deadline.signal.reason);
      }, timeoutMs);
    });
    let onStop: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onStop = () => reject(options.signal.reason);
      if (options.signal.aborted) onStop();
      else options.signal.addEventListener('abort', onStop, { once: true });
    });
    // Nobody awaits these once the check ended: keep their rejections from being unhandled.
    timedOut.catch(() => undefined);
    stopped.catch(() => undefined);
    let result: CheckResult;
    let running: Promise<CheckOutcome | void> | undefined;
    // The answer a check failed on may be one another check had (a look-up made once per run).
    let failedOn: string | undefined;
    try {
      const ctx: CheckContext = {
        ...options.context,
        signal,
        checkId: check.id,
        warn: (m) => {
          warnings.push(m);
        },
      };
      running = check.run(ctx);
      const outcome = await Promise.race([running, timedOut, stopped]);
      const status = outcome?.status === 'warn' || warnings.length > 0 ? 'warn' : 'pass';
      result = { ...base, status, duration_ms: 0, message: outcome?.message ?? warnings[0] ?? 'ok', trace_ids: [], requests, warnings };
    } catch (e) {
      if (options.signal.aborted) {
        clearTimeout(timer);
        if (onStop) options.signal.removeEventListener('abort', onStop);
        const ranMs = Math.max(0, Math.round(options.now() - started));
        const why = options.cutBy?.(check, ranMs);
        if (why !== undefined) {
          // The requests it had in flight were stopped with the run: filed under it as they end.
          if (running) await settledWithin(running, CUT_SETTLE_MS);
          const cut: CheckResult = {
            ...base,
            status: 'fail',
            duration_ms: ranMs,
            message: why,
            trace_ids: traceIds(requests),
            requests,
            warnings,
          };
          results.push(cut);
          options.onResult?.(cut);
        }
        recorder.end();
        break;
      }
      if (e instanceof CheckSkip) {
        result = { ...base, status: 'skip', duration_ms: 0, message: e.message, trace_ids: [], requests, warnings };
      } else {
        const details = e instanceof CheckFailure ? e.details : answerDetails(e, requests, recorder, options.reproduce);
        if (e instanceof ApiError || e instanceof NetworkError) failedOn = e.traceId;
        result = { ...base, status: 'fail', duration_ms: 0, message: errorText(e), trace_ids: [], requests, warnings, ...details };
      }
    } finally {
      clearTimeout(timer);
      if (onStop) options.signal.removeEventListener('abort', onStop);
      recorder.end();
    }
    result.duration_ms = Math.max(0, Math.round(options.now() - started));
    result.trace_ids = traceIds(requests);
    if (failedOn && !result.trace_ids.includes(failedOn)) result.trace_ids.push(failedOn);
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

/** Checks whose requests are signed wrongly on purpose, so that the server refuses them with 401. */
const REFUSED_ON_PURPOSE = new Set(['signing.tampered', 'signing.stale', 'signing.future']);

/**
 * Warnings that make a pass meaningless, raised for the whole run: every answer a 401, no
 * webhook received although a check waited for one, a clock far off.
 */
export function runWarnings(
  results: readonly CheckResult[],
  recorder: Recorder,
  extra: {
    /** The checks of the run: those that wait for a delivery say so (`waitsForDelivery`). */
    checks: readonly CheckDef[];
    webhooksExpected: boolean;
    eventsReceived: number;
    /** Why the listener refused deliveries (`CODE: message`), in order. */
    deliveriesRefused?: readonly string[];
    /** Deliveries arrived and every one was refused for its signature. */
    signatureRefused?: SignatureRefusal;
    clockOffsetSeconds?: number;
  },
): string[] {
  // Webhooks are expected only once the endpoint was registered (webhooks.register passed).
  const registered = results.some((r) => r.id === 'webhooks.register' && (r.status === 'pass' || r.status === 'warn'));
  const warnings: string[] = [];
  // The signing checks that passed were refused on purpose (signed wrongly): their 401s say nothing of the credentials.
  const onPurpose = new Set(
    results.filter((r) => REFUSED_ON_PURPOSE.has(r.id) && (r.status === 'pass' || r.status === 'warn')).flatMap((r) => r.requests),
  );
  const answered = recorder.all.filter((r) => r.status !== null);
  const told = answered.filter((r) => !onPurpose.has(r));
  // Refused throughout: 401, then the 429s a server gives after too many failed authentications.
  const refusedAll = told.some((r) => r.status === 401) && told.every((r) => r.status === 401 || r.status === 429);
  if (refusedAll) {
    warnings.push(
      `every request was answered 401 (or 429 after too many refusals): the server refused these credentials, so no check says anything about the integration`,
    );
  } else if (answered.length > 0 && told.length === 0) {
    warnings.push(
      'every request sent was signed wrongly on purpose (and refused): nothing shows the server accepts these credentials; add access.credentials to --only',
    );
  }
  // Only a check that waited for a delivery can miss one (webhooks.register itself waits for none).
  const waiting = new Set(extra.checks.filter((c) => c.waitsForDelivery === true).map((c) => c.id));
  const waitedForDelivery = results.some((r) => r.status !== 'skip' && waiting.has(r.id));
  if (extra.webhooksExpected && registered && waitedForDelivery && extra.eventsReceived === 0) {
    const refused = extra.deliveriesRefused ?? [];
    const sig = extra.signatureRefused;
    if (sig) {
      warnings.push(
        `no webhook was accepted: ${sig.count === 1 ? 'the delivery that reached' : `all ${sig.count} deliveries that reached`} the listener ${sig.count === 1 ? 'was' : 'were'} refused, signature invalid: ${sig.origin?.cause ?? "the listener's secret is not the one the server signs with"}`,
      );
    } else if (refused.length > 0) {
      const codes = [...new Set(refused.map((r) => r.split(':')[0]))].join(', ');
      warnings.push(
        `no webhook was accepted: the ${refused.length} deliver${refused.length === 1 ? 'y' : 'ies'} that reached the listener ${refused.length === 1 ? 'was' : 'were'} refused (${codes}); the last: ${refused.at(-1)!}`,
      );
    } else {
      warnings.push(
        'no webhook was received at all: deliveries do not reach the listener (is the URL reachable from the server? see --public-url)',
      );
    }
  }
  // Failed authentications are rate-limited (the `auth` class): once refused, later checks
  // see 429s that say nothing about them.
  // (resilience.rate-limit asks for its 429 on purpose: not counted.)
  const counted = results.filter((r) => r.id !== 'resilience.rate-limit').flatMap((r) => r.requests);
  const firstRefusal = counted.findIndex((r) => r.status === 401);
  const limitedAfter = firstRefusal < 0 ? 0 : counted.slice(firstRefusal).filter((r) => r.status === 429).length;
  if (limitedAfter > 0 && !refusedAll) {
    // The signing checks' refusals are 401s on purpose: with no check failed, nothing is to blame.
    warnings.push(
      results.some((r) => r.status === 'fail')
        ? `${countedNoun(limitedAfter, 'request was', 'requests were')} answered 429 after requests were refused with 401: the server limits failed authentications, so checks after the first failures may fail for that alone; fix those first and run again after a minute`
        : `${countedNoun(limitedAfter, 'request was', 'requests were')} answered 429 after requests were refused with 401 (as the signing checks ask): the server limits failed authentications; certify waited as the answers said, which made the run slower, and no check failed for it`,
    );
  }
  if (extra.clockOffsetSeconds !== undefined && Math.abs(extra.clockOffsetSeconds) > 60) {
    warnings.push(
      `this machine's clock is ${Math.abs(Math.round(extra.clockOffsetSeconds))} s ${extra.clockOffsetSeconds > 0 ? 'behind' : 'ahead of'} the server's: signed requests fail beyond 300 s; sync the clock`,
    );
  }
  return warnings;
}
