/** The one request pipeline's interface; `client.ts` implements it (node:http or undici). */
import type { z } from 'zod';
import type { EndpointId, HttpMethod } from '../../contract/endpoints.js';
import type { ContractDrift, ListRead } from './validate.js';

export interface RequestOptions {
  method: HttpMethod | string;
  /** Path relative to the base URL, e.g. `/orders/ord_…` (query goes in `query`). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON-serialisable body, or a raw string sent as is. */
  body?: unknown;
  /**
   * Idempotency key for a write. Made once per logical write (here, when `'auto'`) and
   * reused on every retry. Writes that require one get `'auto'` by default.
   */
  idempotencyKey?: string | 'auto';
  /** Which contract endpoint this is (for response validation and rate-limit pacing). Found from method+path when omitted. */
  endpoint?: EndpointId;
  /** Validate the 2xx body against this schema instead of the endpoint's. */
  schema?: z.ZodType;
  /** Skip response validation (raw `vouchers api`). */
  raw?: boolean;
  signal?: AbortSignal;
  /** Extra headers (e.g. X-Sandbox-Simulate in tests). */
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  /**
   * When false, a non-2xx answer (after retries) is returned instead of thrown, its body
   * parsed but not validated (`vouchers api` prints it before raising the ApiError).
   * Default true.
   */
  throwHttpErrors?: boolean;
  /**
   * A request the CLI makes on its own to find something out (doctor's checks, whether an
   * order exists behind a 404): logged marked as a probe, so `log --failed` leaves it out.
   */
  probe?: boolean;
  /**
   * Sign with a signature that cannot verify (its HMAC replaced by zeros): a control probe
   * (doctor) that tells a server checking signatures from one answering before it does.
   */
  wrongSignature?: boolean;
  /**
   * The caller journals this write's idempotency key before sending it (a bulk run): no
   * "sending" line in the request log, whose lines are written after each answer.
   */
  keyJournalled?: boolean;
  /**
   * The idempotency key was given to the command (--idempotency-key), not made for this
   * request: it may have been used before, even before the request log's oldest line.
   */
  keyGiven?: boolean;
  /**
   * The command prints this keyed write's 2xx answer and then says so (ApiResponse.shown):
   * its answered line is logged `shows_answer`, and one never followed by a shown line (the
   * process killed, or its output closed, before the answer was printed) is listed by
   * `vouchers log --unanswered`. For one-shot writes that create something that costs
   * money (an order, a payout); a bulk run journals its rows instead.
   */
  showsAnswer?: boolean;
  /** Called as each attempt is about to leave (after any pacing wait): a caller learns whether anything was sent. */
  onSend?: () => void;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed (and, unless raw, validated) JSON body; undefined for an empty body. */
  data: T;
  /** The raw body text. */
  text: string;
  traceId: string | undefined;
  replayed: boolean;
  /** 1 on first try. */
  attempts: number;
  idempotencyKey: string | undefined;
  durationMs: number;
  /** How the 2xx body differs from the contract, when it does (the body is passed on as received). */
  drift?: ContractDrift;
  /**
   * The path, relative to the base URL, that a 2xx answer's `Location` header names (a
   * server may name what it created there rather than in its body). Read as a next link
   * is (paging.ts): only a path under the base URL, whatever host the header names.
   */
  locationPath?: string;
  /** How a list endpoint's answer was read (`data` is then `{data, has_more, next_cursor}`). */
  list?: ListRead;
  /**
   * With RequestOptions.showsAnswer, on a 2xx: log that this answer has been shown (printed,
   * and the output flushed). Call it only then: a write whose answer is never shown stays
   * listed by `vouchers log --unanswered`.
   */
  shown?: () => void;
}

/** The retries of a long job so far, by cause (`HTTP 503`, `ECONNRESET`): a live count. */
export interface RetryTally {
  readonly total: number;
  readonly byCause: ReadonlyMap<string, number>;
}

export interface ApiClient {
  request<T = unknown>(options: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * Many requests at once are coming (a batch): send them through undici's pooled agent,
   * which costs more to start than Node's http client (its WebAssembly HTTP parser) and
   * less CPU a request. A client starts on Node's http client unless created `pooled`.
   */
  pool?(): void;
  /**
   * A long job (a batch, every page of a list): pacing waits are waited out however long,
   * with a notice, instead of failing past the client's bound (ClientOptions.maxPaceWaitMs).
   */
  waitOutPacing?(): void;
  /**
   * A long job (a batch) is starting: retries are said at most every 30 s from now on, each
   * line counting those left unsaid since the last; the tally returned counts every retry of
   * the job, for its summary (core/run/retry-notices.ts). A client without notices has none.
   */
  countRetries?(): RetryTally;
  /** Requests a second the pacer allows in a rate class (`orders`: POST /orders; `general`), or undefined when not paced. */
  pacedRate?(rateClass: 'orders' | 'general'): number | undefined;
  /**
   * The trace ID of the last request this client had answered (a 2xx or an error status),
   * undefined before any: what a fault found after the answer came names for support.
   */
  lastAnswered?(): string | undefined;
  /** Close keep-alive connections. */
  close(): Promise<void>;
}
