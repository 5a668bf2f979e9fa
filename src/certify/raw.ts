/**
 * Hand-made requests for the checks that must send what the CLI's client never would: a
 * signature over other bytes, a timestamp outside the window, the other signing path
 * variant, a fault header on the first attempt only. Signed with the shared signer; every
 * answer's trace ID is recorded for the current check. Each request can be repeated with a
 * `vouchers api` command that carries no secret.
 */
import { NetworkError } from '../core/errors/index.js';
import { systemIds } from '../core/run/ids.js';
import { isSignedMethod, signingPath, signRequest, type SigningPathVariant } from '../core/signer/request.js';
import { parseBaseUrl, requestTarget } from '../core/http/url.js';
import { NOTICE_FROM_MS } from '../core/http/client.js';
import { traceparent } from '../core/http/traceparent.js';
import { serverTraceId } from '../core/http/attempt.js';
import { commandLine, type Operand } from '../core/output/shell-quote.js';
import type { Clock } from '../core/time/clock.js';
import type { RecordedRequest } from './types.js';
import type { RequestLogEntry } from '../core/journal/types.js';

export interface RawRequest {
  method: string;
  /** Relative to the base URL; may carry a query string. */
  path: string;
  /** A JSON value, or a string sent byte for byte. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign it (default: POST, PUT and DELETE are signed). */
  sign?: boolean;
  /** The signing path variant (default: the profile's). */
  variant?: SigningPathVariant;
  /** Seconds added to X-Timestamp (a stale one: -600). */
  timestampOffset?: number;
  /** Sign these bytes instead of the body sent: a signature that does not match. */
  signedBody?: string;
  /** Sign with this secret instead of the API secret. */
  signingSecret?: string;
  idempotencyKey?: string;
  /** Another key and secret (a second partner made through the operator surface). */
  credentials?: { apiKey: string; apiSecret: string };
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, undefined when empty or not JSON. */
  json: unknown;
  traceId: string;
  /** The API error code of an error envelope, when there is one. */
  code: string | undefined;
  /** The URL asked (the base URL, its path included, and the request's path). */
  url: string;
}

export interface RawSender {
  send(request: RawRequest): Promise<RawResponse>;
  /** `vouchers api METHOD PATH -d '…' …`: repeats the request without its secret. */
  reproduce(request: RawRequest): string;
  /** `vouchers [root flags] WORDS…`, each word quoted for a shell: a command a report suggests. */
  command(words: (string | Operand)[]): string;
  /** Say, before it starts, a wait of a second or more to send `request` again after `answer` (a 429). */
  announceWait(request: RawRequest, answer: RawResponse, seconds: number): void;
}

export interface RawSenderOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  signingPath: SigningPathVariant;
  clock: Clock;
  signal: AbortSignal;
  /** Told of every request made (the runner files it under the current check). */
  record: (request: RecordedRequest, sent?: { query: string; body?: string }) => void;
  /** Root flags repeated in reproduce commands (e.g. `--profile local`). */
  cliPrefix?: string[];
  /** Told before waiting out a Retry-After of a second or more. */
  notice?: (message: string) => void;
  /** The request log: each request written as the CLI's own probe (profile filled in by the caller). */
  log?: (entry: Omit<RequestLogEntry, 'profile'>) => void;
}

function parse(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createRawSender(options: RawSenderOptions): RawSender {
  const base = parseBaseUrl(options.baseUrl);
  const sender: RawSender = {
    /**
     * A 429 with a Retry-After of 30 s or less is waited out and the request sent again
     * once (certify honours Retry-After, as it certifies); not when the request asks the
     * sandbox for that 429 itself (X-Sandbox-Simulate).
     */
    async send(r) {
      const first = await sendOnce(r);
      const wait = Number(first.headers['retry-after']);
      const simulated = Object.keys(r.headers ?? {}).some((k) => k.toLowerCase() === 'x-sandbox-simulate');
      if (first.status !== 429 || simulated || !Number.isFinite(wait) || wait < 0 || wait > 30) return first;
      sender.announceWait(r, first, wait);
      await options.clock.sleep(wait * 1000, options.signal);
      return sendOnce(r);
    },
    reproduce: (r) => reproduce(r),
    command: (words) => command(words),
    announceWait(r, answer, seconds) {
      if (seconds * 1000 < NOTICE_FROM_MS) return;
      options.notice?.(
        `${r.method.toUpperCase()} ${r.path.split('?')[0]} was answered ${answer.status}${answer.status === 429 ? ' (rate limited)' : ''}: sending it again in ${seconds} s, as its Retry-After says${answer.traceId ? ` (trace ID ${answer.traceId})` : ''}`,
      );
    },
  };
  return sender;

  async function sendOnce(r: RawRequest): Promise<RawResponse> {
    {
      const method = r.method.toUpperCase();
      const { target, path } = requestTarget(base, r.path);
      const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      const traceId = systemIds.traceId();
      const headers: Record<string, string> = {
        accept: 'application/json',
        'x-api-key': r.credentials?.apiKey ?? options.apiKey,
        'x-api-secret': r.credentials?.apiSecret ?? options.apiSecret,
        traceparent: traceparent(traceId, systemIds.spanId()),
        ...Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      };
      if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      const key = r.idempotencyKey ?? (method === 'POST' ? systemIds.idempotencyKey() : undefined);
      if (key !== undefined) headers['idempotency-key'] = key;
      const q = target.indexOf('?');
      const sent = { query: q < 0 ? '' : target.slice(q), body };
      if (r.sign ?? isSignedMethod(method)) {
        const sig = signRequest({
          secret: r.signingSecret ?? r.credentials?.apiSecret ?? options.apiSecret,
          method,
          path: signingPath(target, base.basePath, r.variant ?? options.signingPath),
          body: r.signedBody ?? body ?? '',
          timestamp: Math.floor(options.clock.now() / 1000) + (r.timestampOffset ?? 0),
        });
        headers['x-timestamp'] = sig.headers['X-Timestamp'];
        headers['x-signature'] = sig.headers['X-Signature'];
      }
      const timeout = AbortSignal.timeout(r.timeoutMs ?? 30_000);
      let res: Response;
      const started = performance.now();
      const log = (status: number | null, trace: string, code: string | null) =>
        options.log?.({
          time: new Date(options.clock.now()).toISOString(),
          method,
          path,
          status,
          duration_ms: Math.round(performance.now() - started),
          attempt: 1,
          trace_id: trace,
          idempotency_key: key ?? null,
          error_code: code,
          probe: true,
        });
      try {
        res = await fetch(base.origin + target, { method, headers, body, signal: AbortSignal.any([options.signal, timeout]) });
      } catch (e) {
        options.record({ method, path, status: null, trace_id: traceId, attempt: 1, idempotency_key: key ?? null }, sent);
        const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
        const errno = cause?.code;
        log(null, traceId, typeof errno === 'string' ? errno : 'NETWORK_ERROR');
        // Stopped by the run (Ctrl-C, --timeout, this probe's own time-out): as it came.
        if (options.signal.aborted || timeout.aborted || (e as Error).name === 'AbortError') throw e;
        // fetch says only "fetch failed": name the address and what the system said, as every other check does.
        const why = typeof cause?.message === 'string' ? cause.message : (e as Error).message;
        throw new NetworkError(
          `${method} ${path}: could not reach ${base.origin} (${why})`,
          traceId,
          typeof errno === 'string' ? errno : undefined,
          undefined,
          {
            cause: e,
          },
        );
      }
      const text = await res.text();
      const out: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        out[k] = v;
      });
      // The server's trace ID under any of the names the client reads it from, else the one sent.
      const answered = serverTraceId(out) ?? traceId;
      options.record({ method, path, status: res.status, trace_id: answered, attempt: 1, idempotency_key: key ?? null }, sent);
      const json = parse(text);
      const error = json !== null && typeof json === 'object' ? (json as { error?: { code?: unknown } }).error : undefined;
      log(res.status, answered, res.status < 400 ? null : typeof error?.code === 'string' ? error.code : `HTTP_${res.status}`);
      return {
        status: res.status,
        headers: out,
        text,
        json,
        traceId: answered,
        code: typeof error?.code === 'string' ? error.code : undefined,
        url: base.origin + target,
      };
    }
  }

  function command(words: (string | Operand)[]): string {
    return commandLine(['vouchers', ...(options.cliPrefix ?? []), ...words]);
  }

  function reproduce(r: RawRequest): string {
    const words = ['api', r.method.toUpperCase(), r.path];
    if (r.body !== undefined) words.push('-d', typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
    for (const [k, v] of Object.entries(r.headers ?? {})) words.push('-H', `${k}: ${v}`);
    if (r.idempotencyKey) words.push('--idempotency-key', r.idempotencyKey);
    return command(words);
  }
}
