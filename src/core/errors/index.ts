/**
 * Typed errors. Commands throw these; main.ts alone turns them into exit codes and the
 * output layer renders them (one readable block, or the JSON envelope with --json).
 */

/** What went wrong, in the terms exit codes are decided on. */
export type ErrorKind =
  | 'usage' // 2: bad flags, arguments, files
  | 'auth' // 3: 401, 403
  | 'not_found' // 4
  | 'rejected' // 5: other 4xx
  | 'rate_limited' // 6: 429 after retries
  | 'network' // 7: network, timeout, 5xx
  | 'pending' // 8: still pending when a wait ended
  | 'certification' // 9
  | 'cancelled' // 10: a confirmation was declined; nothing was done
  | 'interrupted' // 130
  | 'unexpected'; // 1

/** The name an error of each kind carries unless its class gives a more precise one. */
const KIND_NAMES: Record<ErrorKind, string> = {
  usage: 'UsageError',
  auth: 'AuthenticationError',
  not_found: 'NotFound',
  rejected: 'Rejected',
  rate_limited: 'RateLimited',
  network: 'NetworkError',
  pending: 'StillPending',
  certification: 'CertificationFailed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
  unexpected: 'UnexpectedError',
};

/** Keys of the JSON error envelope that added fields never replace. */
const ENVELOPE_KEYS = new Set(['error', 'trace_id']);

export class CliError extends Error {
  /**
   * Top-level fields of this error's JSON envelope (with --json), next to `error` and
   * `trace_id`: e.g. the idempotency_key of an order that may exist, so a script can retry
   * safely. Added with `withJsonFields`.
   */
  readonly jsonFields: Readonly<Record<string, unknown>> = {};

  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** What to do next, one line. */
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = KIND_NAMES[kind];
  }

  /**
   * Add fields to the JSON envelope: undefined values are left out, `error` and `trace_id`
   * are never replaced. Returns the same error, for `throw e.withJsonFields({...})`.
   */
  withJsonFields(fields: Record<string, unknown>): this {
    const kept = Object.entries(fields).filter(([k, v]) => !ENVELOPE_KEYS.has(k) && v !== undefined);
    (this as { jsonFields: Record<string, unknown> }).jsonFields = { ...this.jsonFields, ...Object.fromEntries(kept) };
    return this;
  }
  /** The error's code for JSON output (a network failure is NETWORK_ERROR, as NetworkError's). */
  get code(): string {
    return this.kind === 'network' ? 'NETWORK_ERROR' : this.kind.toUpperCase();
  }
}

/** Bad flags, arguments or input files (exit 2). */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super('usage', message, hint, options);
  }
}

export interface ApiErrorInit {
  status: number;
  name: string;
  code: string;
  message: string;
  details?: { path: string; message: string }[];
  traceId?: string;
  retryAfter?: number;
  replayed?: boolean;
  method?: string;
  path?: string;
  hint?: string;
  /**
   * An earlier attempt of the same call (its answer lost: a timeout, a dropped connection, a
   * 5xx) may have been acted on: this answer, to a retry under the same idempotency key,
   * then proves nothing about that attempt on a server that checks the request before the key.
   */
  earlierMayHaveReached?: boolean;
  /**
   * A redirect's `Location` header (3xx): `header` as sent, `path` relative to the base URL
   * when it names a place under it on the same origin (else absent: not to be followed).
   */
  location?: { header: string; path?: string };
  /** The base URL the request went under (`http://host:port/api/v1`): named when its path looks wrong. */
  baseUrl?: string;
  /** The body was not the API's error envelope (a web server's or a proxy's page, plain text, another shape). */
  foreign?: boolean;
}

/** Any non-2xx answer of the API, decoded from its error envelope. */
export class ApiError extends CliError {
  readonly status: number;
  readonly apiCode: string;
  readonly details?: { path: string; message: string }[];
  readonly traceId?: string;
  readonly retryAfter?: number;
  readonly replayed: boolean;
  readonly method?: string;
  readonly path?: string;
  readonly earlierMayHaveReached: boolean;
  readonly location?: { header: string; path?: string };
  readonly baseUrl?: string;
  readonly foreign: boolean;

  constructor(init: ApiErrorInit) {
    super(apiErrorKind(init.status), init.message, init.hint);
    this.name = init.name;
    this.status = init.status;
    this.apiCode = init.code;
    this.details = init.details;
    this.traceId = init.traceId;
    this.retryAfter = init.retryAfter;
    this.replayed = init.replayed ?? false;
    this.method = init.method;
    this.path = init.path;
    this.earlierMayHaveReached = init.earlierMayHaveReached ?? false;
    if (init.location) this.location = init.location;
    if (init.baseUrl !== undefined) this.baseUrl = init.baseUrl;
    this.foreign = init.foreign ?? false;
  }
  override get code(): string {
    return this.apiCode;
  }

  /** The same error with another hint: the API's hint replaced by one that fits the command. */
  withHint(hint: string): ApiError {
    return new ApiError({
      status: this.status,
      name: this.name,
      code: this.apiCode,
      message: this.message,
      details: this.details,
      traceId: this.traceId,
      retryAfter: this.retryAfter,
      replayed: this.replayed,
      method: this.method,
      path: this.path,
      earlierMayHaveReached: this.earlierMayHaveReached,
      location: this.location,
      baseUrl: this.baseUrl,
      foreign: this.foreign,
      hint,
    });
  }
}

export function apiErrorKind(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'rejected';
  return 'network';
}

/** No usable answer: connection refused or reset, DNS, TLS, timeout. */
export class NetworkError extends CliError {
  override readonly name = 'NetworkError';
  /** Whether any attempt of the request may have reached the server (false: provably never sent). */
  readonly mayHaveReached: boolean;
  constructor(
    message: string,
    readonly traceId?: string,
    readonly errno?: string,
    hint?: string,
    options?: { cause?: unknown; mayHaveReached?: boolean },
  ) {
    super('network', message, hint, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.mayHaveReached = options?.mayHaveReached ?? true;
  }
  override get code(): string {
    return this.errno ?? 'NETWORK_ERROR';
  }
}

/** A wait ended with the order still not final (exit 8). */
export class PendingError extends CliError {
  override readonly name = 'StillPending';
  constructor(
    message: string,
    hint?: string,
    readonly traceId?: string,
  ) {
    super('pending', message, hint);
  }
  override get code(): string {
    return 'STILL_PENDING';
  }
}

/** The certification checklist did not pass (exit 9). */
export class CertificationError extends CliError {
  override readonly name = 'CertificationFailed';
  constructor(
    message: string,
    hint?: string,
    /** The request --timeout stopped, when the run was cut while one was in flight. */
    readonly traceId?: string,
  ) {
    super('certification', message, hint);
  }
  override get code(): string {
    return 'CERTIFICATION_FAILED';
  }
}

/**
 * The user answered no to a confirmation (exit 10): nothing was done. Not an interruption
 * (130 reads as Ctrl-C to a script) and not a usage error (the command line was fine).
 */
export class CancelledError extends CliError {
  override readonly name = 'Cancelled';
  constructor(message: string, hint?: string) {
    super('cancelled', message, hint);
  }
  override get code(): string {
    return 'CANCELLED';
  }
}

/** Ctrl-C or SIGTERM (exit 130). */
export class InterruptedError extends CliError {
  override readonly name = 'Interrupted';
  constructor(
    message = 'interrupted',
    hint?: string,
    /** The trace ID of the request it stopped, when one had been sent. */
    readonly traceId?: string,
    /** It stopped a request before any attempt of it was sent: nothing was done. */
    readonly notSent = false,
  ) {
    super('interrupted', message, hint);
  }
  override get code(): string {
    return 'INTERRUPTED';
  }
}

/** stdout's reader went away (EPIPE): the command stops as on a signal, and exits 0 quietly. */
export class OutputClosed extends InterruptedError {
  constructor() {
    super('the output was closed');
  }
}

/** Something the user can fix in their configuration (exit 2, usage). */
export class ConfigError extends CliError {
  override readonly name = 'ConfigError';
  constructor(message: string, hint?: string) {
    super('usage', message, hint);
  }
  override get code(): string {
    return 'CONFIG_ERROR';
  }
}

/**
 * `error` as a CliError, so fields can be added to its JSON envelope: itself; an abort as
 * InterruptedError (exit 130, as main.ts treats any AbortError); anything else as an
 * unexpected error (exit 1) with the same message and stack.
 */
export function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof Error && error.name === 'AbortError') return new InterruptedError();
  const e = error instanceof Error ? error : new Error(String(error));
  const wrapped = new CliError('unexpected', e.message, undefined, { cause: error });
  if (e.stack) wrapped.stack = e.stack;
  return wrapped;
}

/**
 * `--jmespath` could not run on a command's output (a function given a type it does not
 * take): found only once the command has run. A read leaves it a usage error (exit 2); a
 * command that wrote (an order, a payout) reports it with faultAfterWrite: the write stands.
 */
export class QueryRunError extends UsageError {
  /** The trace ID of the answer whose data the expression ran on (set once the run knows it). */
  traceId?: string;
}

/**
 * A fault of this CLI (not an error it reports) while showing the result of a write the
 * server made (an order placed, a payout paid): `done` says first that it was made, `hint`
 * how not to make it again, so that nobody "runs it again" into a second one. A --jmespath
 * that could not run on its output (QueryRunError) is said so. `traceId`: the write's own.
 */
export function faultAfterWrite(error: unknown, done: string, hint: string, traceId?: string): CliError {
  const e = asCliError(error);
  const query = error instanceof QueryRunError;
  const wrapped = new CliError(
    'unexpected',
    `${done}, but ${query ? 'its output could not be queried' : 'showing it failed'}: ${e.message}`,
    query
      ? `${hint}; run it with --json alone to see the data the expression is applied to`
      : `${hint}; run with --debug for the stack trace and report it`,
    {
      cause: error,
    },
  );
  if (e.stack) wrapped.stack = e.stack;
  return traceId ? Object.assign(wrapped, { traceId }) : wrapped;
}
