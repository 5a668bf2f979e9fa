/**
 * The one request pipeline: build → pace → sign → send → log → retry policy → validate or
 * map the error. Every command, the sandbox CLI and the listener call the API through it.
 *
 * Per logical call: one idempotency key (for writes that need one) and one W3C trace id,
 * reused on every attempt; per attempt: a fresh span id, a fresh X-Timestamp and signature
 * over exactly the bytes sent, one request-log line.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { findRoute, type Route } from '../../contract/routes.js';
import type { GlobalOptions } from '../run/factory.js';
import type { Ids } from '../run/ids.js';
import { systemClock, type Clock } from '../time/clock.js';
import { assertSecretTransport } from '../config/insecure-http.js';
import type { RateLimits, ResolvedProfile } from '../config/types.js';
import { CliError, ConfigError, InterruptedError, UsageError } from '../errors/index.js';
import type { IO } from '../io/io.js';
import { notice as writeNotice } from '../output/notice.js';
import type { RequestLog, RequestLogEntry } from '../journal/types.js';
import { isSignedMethod, signingPath, signRequest, type SigningPathVariant } from '../signer/request.js';
import { apiErrorFromResponse, parseJsonBody } from './api-error.js';
import { formatDuration } from './duration.js';
import { classifyFailure, networkError, type TransportFailure } from './network-error.js';
import { paceFile, type PaceStore } from './pace-file.js';
import { Pacer } from './pacing.js';
import { DEFAULT_BACKOFF, parseRetryAfter, shouldRetry, type AttemptOutcome, type BackoffSettings } from './retry.js';
import { traceparent } from './traceparent.js';
import type { ApiClient, ApiResponse, RequestOptions } from './types.js';
import { createTransport, onceSent, type Transport } from './undici.js';
import { parseBaseUrl, requestTarget } from './url.js';
import { userAgent } from './user-agent.js';
import { driftReporter, strictContract } from './drift-report.js';
import { endpointSchemas, schemaLoader, validateResponse, type ContractDrift } from './validate.js';

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
  /** Receives one line per attempt (method, URL, status, ms, trace ID, retry reason): `--debug`. */
  debug?: (line: string) => void;
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
  notice?: (message: string, code: 'RETRY_WAIT' | 'RATE_LIMIT_WAIT', waitMs: number) => void;
  /** Aborts every request of this client (the CLI's Ctrl-C signal). */
  signal?: AbortSignal;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  backoff?: BackoffSettings;
}

const DEFAULTS = { timeoutMs: 30_000, maxRetries: 3 };

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

function interrupted(signal: AbortSignal | undefined): InterruptedError {
  const reason: unknown = signal?.reason;
  return reason instanceof InterruptedError ? reason : new InterruptedError();
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/**
 * A signal that aborts when `long` or `short` does, with nothing left on `long` once
 * disposed. Per attempt, where `long` lives for the whole process (Ctrl-C): AbortSignal.any
 * leaves an entry on its sources for every call, which a long bulk run piles up.
 */
function linkSignals(long: AbortSignal | undefined, short: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (!long) return { signal: short, dispose: () => undefined };
  const c = new AbortController();
  const fromLong = () => c.abort(long.reason);
  const fromShort = () => c.abort(short.reason);
  if (long.aborted) fromLong();
  else if (short.aborted) fromShort();
  else {
    long.addEventListener('abort', fromLong, { once: true });
    short.addEventListener('abort', fromShort, { once: true });
  }
  return { signal: c.signal, dispose: () => { long.removeEventListener('abort', fromLong); short.removeEventListener('abort', fromShort); } };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function numberHeader(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

/** Retry and pacing waits from this long on are announced (ClientOptions.notice). */
const NOTICE_FROM_MS = 1000;

/** Build a client from explicit settings (tests, the sandbox CLI, the listener). */
export function createClient(options: ClientOptions): ApiClient {
  if (!options.baseUrl) throw new ConfigError('no base URL given', 'run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add`');
  const base = parseBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? {
    idempotencyKey: () => randomUUID(),
    traceId: () => randomBytes(16).toString('hex'),
    spanId: () => randomBytes(8).toString('hex'),
  };
  const random = options.random ?? Math.random;
  const defaultTimeout = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const defaultRetries = options.maxRetries ?? DEFAULTS.maxRetries;
  const variant = options.signingPath ?? 'full';
  const limits = options.limits ?? { orders_per_minute: 100, general_per_hour: 1000 };
  const pacer = options.limits === null ? undefined : new Pacer(clock, limits, { store: options.paceStore, onFallback: options.debug });
  const paceLimit = (cls: 'orders' | 'general') => (cls === 'orders' ? `${limits.orders_per_minute}/min` : `${limits.general_per_hour}/hour`);
  const ua = userAgent();
  let transport: Promise<Transport> | undefined;
  let closed = false;

  const log = (entry: RequestLogEntry) => {
    try {
      options.requestLog?.append(entry);
    } catch {
      // A failing log never fails a request.
    }
  };

  async function sleepOrInterrupt(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await clock.sleep(ms, signal);
    } catch (e) {
      if (signal?.aborted) throw interrupted(signal);
      throw e;
    }
  }

  async function request<T>(opts: RequestOptions): Promise<ApiResponse<T>> {
    if (closed) throw new CliError('unexpected', 'the API client was already closed');
    const method = opts.method.toUpperCase();
    const { target, path } = requestTarget(base, opts.path, opts.query);
    // What it takes to send comes from the zod-free route table; the schemas to check the
    // answer load while the request is on its way (not before it is sent).
    const endpoint: Route | undefined = findRoute(method, path, opts.endpoint);
    if (opts.endpoint && !endpoint) throw new CliError('unexpected', `unknown endpoint id ${opts.endpoint}`);
    const schemas = !opts.raw && !opts.schema && endpoint ? schemaLoader(() => endpointSchemas(endpoint.id)) : undefined;
    let sent = false;
    const onSent = () => {
      if (sent) return;
      sent = true;
      void schemas?.();
      opts.onSent?.();
    };
    const signal = combineSignals(opts.signal, options.signal);
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const maxRetries = opts.maxRetries ?? defaultRetries;

    let idempotencyKey: string | undefined;
    // Every write the contract lets carry a key gets one, so any retry of it is safe (a repeated
    // --rotate-secret, say, does not rotate twice).
    const wanted = opts.idempotencyKey ?? (endpoint?.idempotency === 'required' || endpoint?.idempotency === 'optional' ? 'auto' : undefined);
    if (wanted === 'auto') idempotencyKey = ids.idempotencyKey();
    else if (wanted !== undefined) {
      if (!IDEMPOTENCY_KEY.test(wanted)) throw new UsageError(`idempotency key ${JSON.stringify(wanted.slice(0, 40))} is not 1–255 printable ASCII characters`, 'use e.g. a UUID, or leave it out to get one made for you');
      idempotencyKey = wanted;
    }

    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const traceId = ids.traceId();
    const url = base.origin + target;
    const started = performance.now();
    const signed = isSignedMethod(method);
    const rateClass = endpoint?.rateClass ?? 'general';

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw interrupted(signal);
      if (pacer) {
        try {
          await pacer.acquire(rateClass, signal, (wait) => {
            if (options.debug) options.debug(`pacing ${method} ${path}: waiting ${formatDuration(wait)} to stay under the ${rateClass} rate limit (${paceLimit(rateClass)}${pacer.shared ? ', shared by every process of this API key' : ''})`);
            else if (wait >= NOTICE_FROM_MS) options.notice?.(`Waiting ${formatDuration(wait)} to stay under the ${rateClass} rate limit (${paceLimit(rateClass)} for this API key)…`, 'RATE_LIMIT_WAIT', wait);
          });
        } catch (e) {
          if (signal?.aborted) throw interrupted(signal);
          throw e;
        }
      }
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': ua,
        ...Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
        'x-api-key': options.apiKey,
        'x-api-secret': options.apiSecret,
        traceparent: traceparent(traceId, ids.spanId()),
      };
      if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      if (signed) {
        const sig = signRequest({
          secret: options.apiSecret,
          method,
          path: signingPath(target, base.basePath, variant),
          body: body ?? '',
          timestamp: Math.floor(clock.now() / 1000),
        });
        headers['x-timestamp'] = sig.headers['X-Timestamp'];
        headers['x-signature'] = sig.headers['X-Signature'];
      }

      const attemptTime = new Date(clock.now()).toISOString();
      const t0 = performance.now();
      let response: ApiResponse<unknown> | undefined;
      let failure: TransportFailure | undefined;
      // A precise per-attempt deadline (undici's own timeouts tick at about half a second).
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      const linked = linkSignals(signal, deadline.signal);
      const forget = onceSent(headers.traceparent!, onSent);
      try {
        const t = await (transport ??= createTransport({ connectTimeoutMs: defaultTimeout }));
        const res = await t.request({
          origin: base.origin, path: target, method: method as 'GET', headers, body,
          signal: linked.signal,
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
        });
        const text = await res.body.text();
        const resHeaders = flattenHeaders(res.headers);
        response = {
          status: res.statusCode,
          headers: resHeaders,
          data: undefined,
          text,
          traceId: resHeaders['x-trace-id'] ?? traceId,
          replayed: resHeaders['idempotent-replayed'] === 'true',
          attempts: attempt,
          idempotencyKey,
          durationMs: 0,
        };
      } catch (e) {
        if (signal?.aborted) {
          log({ time: attemptTime, profile: options.profileName ?? '', method, path, status: null, duration_ms: performance.now() - t0, attempt, trace_id: traceId, idempotency_key: idempotencyKey ?? null, error_code: 'INTERRUPTED', probe: opts.probe });
          throw interrupted(signal);
        }
        failure = deadline.signal.aborted ? classifyFailure({ code: 'UND_ERR_HEADERS_TIMEOUT' }) : classifyFailure(e);
      } finally {
        clearTimeout(timer);
        linked.dispose();
        forget();
      }
      const ms = Math.round(performance.now() - t0);

      let outcome: AttemptOutcome;
      let errorCode: string | null = null;
      if (response) {
        const ok = response.status >= 200 && response.status < 300;
        const envelope = ok ? undefined : (parseJsonBody(response.text) as { error?: { code?: unknown } } | undefined);
        const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : undefined;
        if (!ok) errorCode = code ?? `HTTP_${response.status}`;
        outcome = { kind: 'response', status: response.status, code, retryAfterMs: parseRetryAfter(response.headers['retry-after'], clock.now()) };
        pacer?.observe(rateClass, numberHeader(response.headers['ratelimit-remaining']), (numberHeader(response.headers['ratelimit-reset']) ?? 0) * 1000 || undefined);
      } else {
        outcome = { kind: 'network', phase: failure!.phase, transient: failure!.transient, errno: failure!.errno };
        errorCode = failure!.errno;
      }
      log({
        time: attemptTime, profile: options.profileName ?? '', method, path,
        status: response?.status ?? null, duration_ms: ms, attempt,
        trace_id: response?.traceId ?? traceId, idempotency_key: idempotencyKey ?? null, error_code: errorCode, probe: opts.probe,
      });

      const ok = response !== undefined && response.status >= 200 && response.status < 300;
      const decision = ok
        ? { retry: false, delayMs: 0, reason: '' }
        : shouldRetry({ method, hasIdempotencyKey: idempotencyKey !== undefined, attempt, maxRetries, outcome, random: random(), backoff: options.backoff ?? DEFAULT_BACKOFF });
      if (options.debug) {
        const what = response ? String(response.status) : `${failure!.errno}`;
        const tail = decision.retry ? `; retrying in ${formatDuration(decision.delayMs)}: ${decision.reason}` : decision.reason ? `; not retried: ${decision.reason}` : '';
        options.debug(`${method} ${url} → ${what} in ${ms}ms (attempt ${attempt}, trace ${response?.traceId ?? traceId}${idempotencyKey ? `, idempotency key ${idempotencyKey}` : ''})${tail}`);
      }
      if (decision.retry) {
        if (decision.delayMs >= NOTICE_FROM_MS && !options.debug) {
          options.notice?.(`${method} ${path}: ${decision.reason}; retrying in ${formatDuration(decision.delayMs)} (attempt ${attempt + 1} of ${maxRetries + 1}, trace ${response?.traceId ?? traceId}). Ctrl-C stops`, 'RETRY_WAIT', decision.delayMs);
        }
        await sleepOrInterrupt(decision.delayMs, signal);
        continue;
      }

      if (!response) {
        throw networkError(failure!, { method, origin: base.origin, timeoutMs, traceId, idempotencyKey, attempts: attempt });
      }
      response.durationMs = Math.round(performance.now() - started);
      if (!ok) {
        if (opts.throwHttpErrors === false) {
          response.data = parseJsonBody(response.text);
          return response as ApiResponse<T>;
        }
        throw apiErrorFromResponse(response, { method, path }, clock.now());
      }
      const parsed = parseJsonBody(response.text);
      if (opts.raw) {
        response.data = parsed;
        return response as ApiResponse<T>;
      }
      const checked = validateResponse({ method, path, status: response.status, data: parsed, text: response.text, traceId: response.traceId, endpoint: await schemas?.(), schema: opts.schema, strict: options.strictContract, idempotencyKey });
      response.data = checked.data;
      if (checked.list) response.list = checked.list;
      if (checked.drift) {
        response.drift = checked.drift;
        options.onDrift?.(checked.drift);
      }
      return response as ApiResponse<T>;
    }
  }

  return {
    request,
    async close() {
      closed = true;
      const t = transport;
      transport = undefined;
      if (t) await (await t).close();
    },
  };
}

const SETUP_HINT = 'run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add`';

export interface ProfileClientDeps {
  io: IO;
  clock: Clock;
  ids: Ids;
  requestLog: RequestLog;
  globals: GlobalOptions;
  /**
   * The folder of the pace files shared by every process of an API key
   * (`<config dir>/pacing`, pace-file.ts); without it the pace is this process's own.
   */
  pacingDir?: string;
}

/**
 * The run's notices of long waits. In a bulk run every request in flight waits for the same
 * next window: a wait that ends no later than one already said is not said again. Short
 * pacing waits are said at most every 30 s (a wait of 5 s or more always is, unless said),
 * so a CI log shows the run is alive without a line per row. Retry waits are always said.
 */
function paceNotices(deps: ProfileClientDeps): NonNullable<ClientOptions['notice']> {
  let lastPace = -Infinity;
  let saidUntil = -Infinity;
  return (message, code, waitMs) => {
    if (code === 'RATE_LIMIT_WAIT') {
      const now = deps.clock.now();
      if (now + waitMs <= saidUntil + NOTICE_FROM_MS) return;
      if (waitMs < 5_000 && now - lastPace < 30_000) return;
      lastPace = now;
      saidUntil = now + waitMs;
    }
    writeNotice(deps.io, { format: deps.globals.json ? 'json' : 'table' }, code, message);
  };
}

/** The client of one CLI run: the resolved profile's credentials, limits, timeout and retries. */
export function createClientForProfile(profile: ResolvedProfile, deps: ProfileClientDeps): ApiClient {
  const missing = [
    !profile.base_url && 'base URL',
    !profile.api_key && 'API key',
    !profile.api_secret && 'API secret',
  ].filter((x): x is string => Boolean(x));
  if (missing.length > 0) {
    const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`;
    throw new ConfigError(
      `no ${list} for profile "${profile.name}" (set them in the profile, or with VOUCHERS_BASE_URL, VOUCHERS_API_KEY and VOUCHERS_API_SECRET)`,
      SETUP_HINT,
    );
  }
  // No secret over plain http to another machine unless the profile opts in: before any request.
  assertSecretTransport(profile);
  const debug = deps.globals.debug ? (line: string) => { deps.io.stderr.write(`[debug] ${line}\n`); } : undefined;
  if (debug) {
    deps.requestLog.onError?.((e) => debug(`request log ${deps.requestLog.path} could not be written (${e.message}); requests are not being logged`));
  }
  return createClient({
    baseUrl: profile.base_url!,
    apiKey: profile.api_key!,
    apiSecret: profile.api_secret!,
    signingPath: profile.signing_path,
    limits: profile.limits,
    // --timeout and --max-retries are already folded into the resolved profile.
    timeoutMs: profile.timeout_ms,
    maxRetries: profile.max_retries,
    clock: deps.clock,
    ids: deps.ids,
    requestLog: deps.requestLog,
    profileName: profile.name,
    debug,
    onDrift: driftReporter(deps),
    strictContract: strictContract(deps),
    // The pace is shared by every process of this API key on the machine.
    ...(deps.pacingDir ? { paceStore: paceFile(deps.pacingDir, profile.base_url!, profile.api_key!) } : {}),
    // Also when stderr is not a terminal: a silent minute in CI looks like a hang. With
    // --json it is one JSON line, so stderr stays machine-readable.
    notice: paceNotices(deps),
    signal: deps.io.signal,
  });
}
