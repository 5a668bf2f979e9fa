/**
 * The one request pipeline. Every command, the sandbox CLI and the listener call the API
 * through `request()`, which reads top to bottom, one step per function:
 *
 *   prepareCall (call.ts)      resolve the route once; idempotency key, trace id, body
 *   pace                       stay under the rate limit (pacing.ts, shared by processes)
 *   attemptHeaders (attempt.ts) credentials, a new span, the signature when route.signed
 *   sendAttempt (attempt.ts)   send within a precise per-attempt deadline
 *   logEntry (outcome.ts)      one request-log line per attempt
 *   retryDecision (outcome.ts) the pure retry policy (retry.ts); wait, then try again
 *   answer (answer.ts)         map the error, or check the 2xx against the contract
 *
 * Per logical call: one idempotency key (for writes that take one) and one W3C trace id,
 * reused on every attempt; per attempt: a fresh span id, a fresh X-Timestamp and signature
 * over exactly the bytes sent, one request-log line.
 */
import { systemClock, type Clock } from '../time/clock.js';
import { iso } from '../time/iso.js';
import type { RateLimits } from '../config/types.js';
import { CliError, ConfigError, InterruptedError, UsageError } from '../errors/index.js';
import type { RequestLog, RequestLogEntry, RequestTarget } from '../journal/types.js';
import type { SigningPathVariant } from '../signer/request.js';
import { systemIds, type Ids } from '../run/ids.js';
import { answer } from './answer.js';
import { attemptHeaders, sendAttempt, type HeaderContext } from './attempt.js';
import { prepareCall, type Call } from './call.js';
import { formatDuration } from './duration.js';
import type { PaceStore } from './pace-file.js';
import { Pacer } from './pacing.js';
import { DEFAULT_BACKOFF, type BackoffSettings } from './retry.js';
import { judge, logEntry, retryDecision, sendingEntry } from './outcome.js';
import { debugRequest, debugResponse } from './debug-dump.js';
import { refuseSecretAsKey } from './secret-key.js';
import { afterNextPoll, interrupted } from './signals.js';
import type { ApiClient, ApiResponse, RequestOptions } from './types.js';
import { createTransport, type Transport } from './undici.js';
import { createNodeTransport } from './node-transport.js';
import { parseBaseUrl } from './url.js';
import { userAgent } from './user-agent.js';
import type { ContractDrift } from './validate.js';

export interface ClientOptions {
  /** Base URL including the version prefix, e.g. `http://127.0.0.1:4010/api/v1`. */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Which path goes into the signature (default `full`). */
  signingPath?: SigningPathVariant;
  /** Client-side pacing per rate-limit class; `null` turns pacing off. */
  limits?: RateLimits | null;
  /**
   * Share the pace with other processes of the same API key (pace-file.ts); without it the
   * pace is this client's own. The CLI's profile client passes one.
   */
  paceStore?: PaceStore;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  clock?: Clock;
  ids?: Ids;
  /** One line per attempt; nothing is logged without it. */
  requestLog?: RequestLog;
  /** Profile name written to the request log. */
  profileName?: string;
  /** The saved sandbox profile (one with an admin URL) the base URL is from: named in the hint that starts the sandbox. */
  sandboxProfile?: string;
  /** Where the base URL and API key came from when not from that profile (the log's `set_by`); absent when both are the profile's. */
  target?: RequestTarget;
  /** Receives one line per attempt (method, URL, status, ms, trace ID, retry reason): `--debug`. */
  debug?: (line: string) => void;
  /**
   * Receives each attempt's request as sent, before it leaves, and its answer, after the
   * attempt's `debug` line: headers and body, masked (debug-dump.ts), several lines in one
   * string: `--debug`.
   */
  debugBodies?: (block: string) => void;
  /**
   * Told when a 2xx answer differs from the contract (shape, or enum values this version does
   * not know): the answer is returned anyway, as received.
   */
  onDrift?: (drift: ContractDrift) => void;
  /** A 2xx answer that differs from the contract fails with ContractMismatchError (`--strict-contract`). */
  strictContract?: boolean;
  /**
   * Told when the client is about to wait a second or more: before a retry (after a 429, a
   * 5xx or a lost connection, code `RETRY_WAIT`) or to stay under a rate limit (code
   * `RATE_LIMIT_WAIT`), so that a long wait is never silent. Not called with `debug`, which
   * reports every attempt and wait anyway.
   */
  notice?: (message: string, code: 'RETRY_WAIT' | 'RATE_LIMIT_WAIT', waitMs: number, cause?: string) => void;
  /**
   * The longest pacing wait a request waits out; a longer one fails at once (rate_limited,
   * nothing sent, the slot given back) naming when the next request fits. Unset: no bound.
   * `waitOutPacing()` lifts it for a long job (a batch, every page of a list).
   */
  maxPaceWaitMs?: number;
  /**
   * Send through undici's pooled agent from the start (see `ApiClient.pool`); otherwise
   * Node's http client, which starts faster.
   */
  pooled?: boolean;
  /** Aborts every request of this client (the CLI's Ctrl-C signal). */
  signal?: AbortSignal;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  backoff?: BackoffSettings;
}

const DEFAULTS = { timeoutMs: 30_000, maxRetries: 3 };

/** Retry and pacing waits from this long on are announced (ClientOptions.notice). */
export const NOTICE_FROM_MS = 1000;

/**
 * The longest pacing wait a one-shot command waits out: a minute's window and its margin
 * (the orders class), not an hour's (the general class, once its budget is used up). A
 * longer wait fails at once, as a 429 whose Retry-After is past 60 s does.
 */
export const MAX_PACE_WAIT_MS = 65_000;

function numberHeader(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

/**
 * A path or query holding the profile's API secret (pasted where an id goes) is never sent:
 * it would travel in the URL, come back in the error and stay in the request log.
 */
function refuseSecretInUrl(opts: RequestOptions, secret: string): void {
  refuseSecretAsKey(opts.idempotencyKey, secret);
  if (secret.length < 8) return;
  const inQuery = Object.values(opts.query ?? {}).some((v) => typeof v === 'string' && v.includes(secret));
  let inPath = opts.path.includes(secret);
  if (!inPath && opts.path.includes('%'))
    try {
      inPath = decodeURIComponent(opts.path).includes(secret);
    } catch {
      // not percent-encoded text: checked as it is
    }
  if (inPath || inQuery)
    throw new UsageError(
      `the request's ${inPath ? 'path' : 'query'} holds this profile's API secret [the API secret, redacted]: nothing was sent`,
      'an id or a filter goes there, never the secret: check what was pasted (the secret only signs requests)',
    );
}

/** The longest rate-limit window the document names: 1000 requests per hour. */
const LONGEST_WINDOW_MS = 3_600_000;

/**
 * RateLimit-Reset as a wait in ms. The document does not show the header: read as seconds
 * until the reset (the IETF draft), or, when the number is a date (past 10^9, over 31 years
 * of seconds), as epoch seconds (past 10^12, epoch milliseconds). Never longer than the longest window the document names:
 * a server's own reading must not hold every command of the key for years. 0: the reset
 * has come (a date past), so what the answer says is left no longer holds.
 */
export function resetWaitMs(value: string | undefined, nowMs: number): number | undefined {
  const n = numberHeader(value);
  if (n === undefined) return undefined;
  const ms = n > 1e12 ? n - nowMs : n > 1e9 ? n * 1000 - nowMs : n * 1000;
  return Math.min(Math.max(0, ms), LONGEST_WINDOW_MS);
}

/** Build a client from explicit settings (tests, the sandbox CLI, the listener). */
export function createClient(options: ClientOptions): ApiClient {
  if (!options.baseUrl)
    throw new ConfigError('no base URL given', 'run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add`');
  const base = parseBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const limits = options.limits ?? { orders_per_minute: 100, general_per_hour: 1000 };
  const pacer = options.limits === null ? undefined : new Pacer(clock, limits, { store: options.paceStore, onFallback: options.debug });
  const credentials = { apiKey: options.apiKey, apiSecret: options.apiSecret, signingPath: options.signingPath ?? 'full' };
  const ua = userAgent();
  const ids = options.ids ?? systemIds;
  const headerContext: HeaderContext = { base, credentials, clock, ids, userAgent: ua };
  const profile = options.profileName ?? '';
  const transportOptions = { connectTimeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs };
  let pooled = options.pooled ?? false;
  let transport: Promise<Transport> | undefined;
  /** The transport once made: an attempt then takes it without awaiting. */
  let ready: Transport | undefined;
  const connect = (): Transport | Promise<Transport> => {
    if (ready) return ready;
    const made = (transport ??= pooled ? createTransport(transportOptions) : Promise.resolve(createNodeTransport(transportOptions)));
    made.then(
      (t) => {
        if (transport === made) ready = t;
      },
      () => undefined,
    );
    return made;
  };
  let closed = false;

  /** The line as logged: with where its server and key came from, when not from the profile (each entry is made for its line). */
  const setBy = options.target;
  const stamped = (entry: RequestLogEntry): RequestLogEntry => {
    if (setBy) entry.set_by = setBy;
    return entry;
  };

  function log(entry: RequestLogEntry, call: Call): void {
    entry = stamped(entry);
    try {
      const q = call.target.indexOf('?');
      options.requestLog?.append(entry, { query: q < 0 ? '' : call.target.slice(q), body: call.body });
    } catch {
      // A failing log never fails a request.
    }
  }

  /** The shown line of an answered attempt (RequestLog.shown). */
  function logShown(entry: RequestLogEntry): void {
    try {
      options.requestLog?.shown?.(entry);
    } catch {
      // A failing log never fails a request.
    }
  }

  function logSending(entry: RequestLogEntry): void {
    entry = stamped(entry);
    try {
      options.requestLog?.sending?.(entry);
    } catch {
      // A failing log never fails a request.
    }
  }

  /** Stay under the rate limit: nothing to wait for (undefined), or the wait. */
  let maxPaceWaitMs = options.maxPaceWaitMs ?? Infinity;

  function pace(call: Call): Promise<void> | undefined {
    if (!pacer) return undefined;
    const wait = pacer.reserve(call.rateClass);
    if (wait > maxPaceWaitMs) {
      // Not waited for: the slot goes back (nothing else reserved since), so a retry later is not pushed further out.
      pacer.release(call.rateClass);
      throw paceTooLong(call, wait);
    }
    return wait > 0 ? paceWait(pacer, call, wait) : undefined;
  }

  function limitText(rateClass: Call['rateClass']): string {
    return rateClass === 'orders' ? `${limits.orders_per_minute}/min` : `${limits.general_per_hour}/hour`;
  }

  function paceTooLong(call: Call, wait: number): CliError {
    const at = iso(clock.now() + wait).replace(/\.\d{3}Z$/, 'Z');
    return new CliError(
      'rate_limited',
      `${call.method} ${call.path} was not sent: the ${call.rateClass} rate limit (${limitText(call.rateClass)} for this API key) is used up, ` +
        `and the next request fits in ${formatDuration(wait)} (at ${at})`,
      `retry after ${at}; every vouchers process using this API key on this machine counts toward the limit (vouchers log lists the recent requests)`,
    ).withJsonFields({ retry_after_seconds: Math.ceil(wait / 1000) });
  }

  /**
   * Ctrl-C (or SIGTERM) stopped a request: before anything was sent (nothing done), or once
   * an attempt may have reached the server, when a write may or may not have been acted on.
   * Says which, with the trace ID and the Idempotency-Key that makes sending it again safe.
   */
  function stopped(call: Call, how: 'not_sent' | 'in_flight' | 'sent'): InterruptedError {
    const reason = interrupted(call.signal).message;
    const what = `${call.method} ${call.path}`;
    const write = call.method !== 'GET' && call.method !== 'HEAD';
    if (how === 'not_sent')
      return new InterruptedError(`${reason} before ${what} was sent${write ? ': nothing was done' : ''}`, undefined, undefined, true);
    const key = call.idempotencyKey;
    const error = new InterruptedError(
      `${reason} ${how === 'in_flight' ? 'while' : 'after'} ${what} was ${how === 'in_flight' ? 'in flight' : 'sent'}${write ? ': the server may or may not have acted on it' : ''}`,
      write && key
        ? `its Idempotency-Key was ${key}: sent again with that key (--idempotency-key ${key}), the server answers with what it did and never does it twice`
        : undefined,
      call.traceId,
    );
    return write && key ? error.withJsonFields({ idempotency_key: key }) : error;
  }

  async function paceWait(pacer: Pacer, call: Call, wait: number): Promise<void> {
    const { method, path, rateClass } = call;
    const limit = limitText(rateClass);
    try {
      await pacer.waitFor(rateClass, wait, call.signal, (wait) => {
        if (options.debug)
          options.debug(
            `pacing ${method} ${path}: waiting ${formatDuration(wait)} to stay under the ${rateClass} rate limit (${limit}${pacer.shared ? ', shared by every process of this API key' : ''})`,
          );
        else if (wait >= NOTICE_FROM_MS)
          options.notice?.(
            `Waiting ${formatDuration(wait)} to stay under the ${rateClass} rate limit (${limit} for this API key)…`,
            'RATE_LIMIT_WAIT',
            wait,
          );
      });
    } catch (e) {
      if (call.signal?.aborted) throw interrupted(call.signal);
      throw e;
    }
  }

  async function waitBeforeRetry(call: Call, ms: number, sent: boolean): Promise<void> {
    try {
      await clock.sleep(ms, call.signal);
    } catch (e) {
      if (call.signal?.aborted) throw stopped(call, sent ? 'sent' : 'not_sent');
      throw e;
    }
  }

  async function request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
    if (closed) throw new CliError('unexpected', 'the API client was already closed');
    refuseSecretInUrl(opts, credentials.apiSecret);
    const call = prepareCall(opts, {
      base,
      ids,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      signal: options.signal,
    });
    // Whether an attempt so far may have been acted on: answered (but for 429, refused
    // before acting) or cut off after it was sent. A later attempt that cannot connect must
    // not report the request as never sent.
    let mayHaveReached = false;
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw stopped(call, mayHaveReached ? 'sent' : 'not_sent');
      const paced = pace(call);
      if (paced)
        await paced.catch((e: unknown) => {
          throw call.signal?.aborted ? stopped(call, mayHaveReached ? 'sent' : 'not_sent') : e;
        });
      // A write waits for a signal the loop has not emitted yet (signals.ts afterNextPoll).
      if (call.signal && call.method !== 'GET' && call.method !== 'HEAD') await afterNextPoll();
      // Ctrl-C during a pacing wait (or that wait): this attempt never leaves.
      if (call.signal?.aborted) throw stopped(call, mayHaveReached ? 'sent' : 'not_sent');
      const headers = attemptHeaders(call, headerContext);
      opts.onSend?.();
      const time = iso(clock.now());
      // A keyed write is in the log before it leaves: a kill before the answer keeps its key.
      const sending = options.requestLog?.sending && sendingEntry(call, attempt, time, profile);
      if (sending) logSending(sending);
      // --debug: the request as sent, masked (debug-dump.ts), before its answer is awaited.
      if (options.debugBodies)
        options.debugBodies(debugRequest(call.method, call.url, call.path, headers, call.body, credentials.apiSecret));
      const sent = await sendAttempt(call, headers, attempt, base, connect, credentials.apiSecret);
      if (sent.kind === 'interrupted') {
        log(logEntry(call, sent, attempt, time, profile, null), call);
        throw stopped(call, 'in_flight');
      }
      const judged = judge(sent, clock.now());
      // The RateLimit headers describe the class the request was charged to: for a failed
      // authentication (401) that is the auth-failure class (5 a minute), not the request's.
      // Booked against the request's class, one typo'd secret read as a general budget used
      // up and held every command of the key for an hour. So does a request signed wrongly on
      // purpose (doctor's control probe), whatever its answer: past the auth-failure limit
      // it is a 429 of that class, which held every command of the key for a minute.
      if (sent.kind === 'response' && sent.response.status !== 401 && !call.options.wrongSignature) {
        const h = sent.response.headers;
        const reset = resetWaitMs(h['ratelimit-reset'], clock.now());
        if (reset !== 0) pacer?.observe(call.rateClass, numberHeader(h['ratelimit-remaining']), reset);
      }
      const logged = logEntry(call, sent, attempt, time, profile, judged.errorCode);
      log(logged, call);
      const decision = retryDecision(call, judged, attempt, random(), backoff);
      const traceId = sent.kind === 'response' ? sent.response.traceId : call.traceId;
      if (options.debug) {
        const what = sent.kind === 'response' ? String(sent.response.status) : sent.failure.errno;
        const tail = decision.retry
          ? `; retrying in ${formatDuration(decision.delayMs)}: ${decision.reason}`
          : decision.reason
            ? `; not retried: ${decision.reason}`
            : '';
        options.debug(
          `${call.method} ${call.url} → ${what} in ${sent.ms}ms (attempt ${attempt}, trace ${traceId}${call.idempotencyKey ? `, idempotency key ${call.idempotencyKey}` : ''})${tail}`,
        );
      }
      if (options.debugBodies && sent.kind === 'response') {
        const r = sent.response;
        options.debugBodies(debugResponse(call.path, r.status, r.headers, r.text, credentials.apiSecret));
      }
      if (!decision.retry) {
        const res = answer<T>(call, sent, attempt, {
          origin: base.origin,
          baseUrl: base.origin + base.basePath,
          earlierMayHaveReached: mayHaveReached,
          sandboxProfile: options.sandboxProfile,
          now: clock.now(),
          strictContract: options.strictContract,
          onDrift: options.onDrift,
        });
        if (logged.shows_answer !== true) return res;
        // Its command says when it has printed it: the shown line names this attempt.
        const shown = (r: ApiResponse<T>) => Object.assign(r, { shown: () => logShown(logged) });
        return res instanceof Promise ? res.then(shown) : shown(res);
      }
      // Every retry is announced, whatever its wait: after a timeout (a request that timed out
      // after 30 s and is sent again at once would leave the terminal silent for minutes), a
      // 502/503 or a refused connection alike, so that a run that ends well after retries
      // does not hide that the server failed (--debug says it in its own line).
      if (!options.debug) {
        options.notice?.(
          `${call.method} ${call.path}: ${decision.reason}; retrying in ${formatDuration(decision.delayMs)} (attempt ${attempt + 1} of ${call.maxRetries + 1}, trace ${traceId}). Ctrl-C stops`,
          'RETRY_WAIT',
          decision.delayMs,
          decision.cause,
        );
      }
      if (sent.kind === 'response' ? sent.response.status !== 429 : sent.failure.phase === 'after_send') mayHaveReached = true;
      await waitBeforeRetry(call, decision.delayMs, mayHaveReached);
    }
  }

  return {
    request,
    waitOutPacing() {
      maxPaceWaitMs = Infinity;
    },
    pacedRate(rateClass) {
      if (!pacer) return undefined;
      return rateClass === 'orders' ? limits.orders_per_minute / 60 : limits.general_per_hour / 3600;
    },
    pool() {
      if (pooled) return;
      pooled = true;
      // The next request opens the pool; connections of the requests so far close once idle.
      const before = transport;
      transport = undefined;
      ready = undefined;
      void before?.then((t) => t.close()).catch(() => undefined);
    },
    async close() {
      closed = true;
      // The slots leased and not used go back to the other processes of this API key.
      pacer?.giveBackLeases();
      const t = transport;
      transport = undefined;
      ready = undefined;
      if (t) await (await t).close();
    },
  };
}
