/**
 * The sandbox application without a socket: runtime (state, clock, ids, randomness),
 * scheduler, webhook dispatcher, state file, and the request listener that dispatches to
 * the API pipeline (/api/v1) and the admin surface (/admin). `startSandbox` puts it on a
 * port; tests may use it directly.
 */
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ConfigError } from '../core/errors/index.js';
import { SandboxClock } from './core/clock.js';
import { Rng } from './core/random.js';
import { dialectNamed } from './dialects/index.js';
import { resolveConfig, type SandboxDialect, type SandboxOptions } from './options.js';
import type { Runtime } from './runtime.js';
import { handleApiRequest, type ApiServices } from './api/pipeline.js';
import { IdempotencyStore } from './api/idempotency.js';
import { RateLimiter } from './api/rate-limit.js';
import { handleAdminRequest, type AdminServices } from './admin/router.js';
import { SandboxHttpError } from './http/errors.js';
import { send } from './http/respond.js';
import { traceIdFrom } from './http/trace.js';
import { Scheduler } from './scheduler.js';
import { newAdminToken, newApiKey, newApiSecret } from './state/credentials.js';
import { loadState, StateWriter, writeInitialState } from './state/persist.js';
import { DEFAULT_PARTNER_ID, emptyState, seedState } from './state/seed.js';
import type { SandboxState } from './state/types.js';
import { DeliveryDispatcher } from './webhooks/dispatcher.js';
import { DEFAULT_ALLOWLIST } from './core/cidr.js';

export interface SandboxCredentials {
  apiKey: string;
  apiSecret: string;
  adminToken: string;
  partnerId: string;
}

export interface SandboxApp {
  listener(req: IncomingMessage, res: ServerResponse): void;
  /**
   * The server's `clientError`: a request node:http could not parse (headers over its
   * limit, a malformed request line or header) is answered 400 MALFORMED_REQUEST in the
   * dialect's error format, with X-Trace-ID and Date, instead of node's bare 400 or 431.
   */
  clientError(err: NodeJS.ErrnoException, socket: Duplex): void;
  /** The server's `connect`: a CONNECT request is answered 405 (node would close the connection without a word). */
  connect(req: IncomingMessage, socket: Duplex): void;
  runtime(): Runtime;
  credentials: SandboxCredentials;
  /** The dialect it speaks (the option, else the state file's, else `decisions`). */
  dialect: SandboxDialect;
  /** Run what is already due (after a restart) and arm the scheduler. */
  start(): void;
  /** Stop timers and deliveries, end held requests, flush the state file. */
  close(): Promise<void>;
}

function defaultKeyOf(state: SandboxState, options: SandboxOptions, now: number): { apiKey: string; apiSecret: string } {
  if (options.apiKey) {
    const existing = state.keys[options.apiKey];
    const apiSecret = options.apiSecret ?? existing?.api_secret ?? newApiSecret();
    state.keys[options.apiKey] = {
      api_key: options.apiKey,
      api_secret: apiSecret,
      partner_id: existing?.partner_id ?? state.default_partner_id,
      allowlist: existing?.allowlist ?? [...DEFAULT_ALLOWLIST],
      created_at: existing?.created_at ?? now,
      revoked_at: null,
    };
    return { apiKey: options.apiKey, apiSecret };
  }
  const key = Object.values(state.keys).find((k) => k.partner_id === state.default_partner_id && k.revoked_at === null);
  if (key) return { apiKey: key.api_key, apiSecret: key.api_secret };
  const created = { apiKey: newApiKey(), apiSecret: options.apiSecret ?? newApiSecret() };
  state.keys[created.apiKey] = {
    api_key: created.apiKey,
    api_secret: created.apiSecret,
    partner_id: state.default_partner_id,
    allowlist: [...DEFAULT_ALLOWLIST],
    created_at: now,
    revoked_at: null,
  };
  return created;
}

/**
 * The dialect of a state file is kept: ids and stored answers (idempotency replays, event
 * payloads) are in its shape, so the option may only repeat it.
 */
function settleDialect(file: string, stored: SandboxState, asked: SandboxDialect | undefined): SandboxDialect {
  const inFile: SandboxDialect = stored.dialect === 'document' ? 'document' : 'decisions';
  if (asked !== undefined && asked !== inFile) {
    throw new ConfigError(
      `The sandbox state file ${file} holds a sandbox of the ${inFile} dialect, not ${asked}`,
      `Start it with --dialect ${inFile} (or without --dialect), or pass another --state file for the ${asked} dialect`,
    );
  }
  return inFile;
}

export function createSandboxApp(options: SandboxOptions = {}): SandboxApp {
  const config = resolveConfig(options);
  const loaded = options.stateFile ? loadState(options.stateFile) : undefined;
  if (loaded && options.stateFile) config.dialect = settleDialect(options.stateFile, loaded, options.dialect);
  const dialect = dialectNamed(config.dialect);
  const clock = new SandboxClock(options.now ?? (() => Date.now()), loaded?.clock_offset_ms ?? 0);
  const rng = new Rng(loaded?.rng_state ?? config.seed);
  const ids = dialect.ids(
    rng,
    () => clock.now(),
    () => rt.state,
  );
  const log = options.quiet ? () => {} : (options.log ?? (() => {}));
  const adminToken = options.adminToken ?? loaded?.admin_token ?? newAdminToken();
  const seed = options.seed ?? loaded?.seed ?? config.seed;

  let writer: StateWriter | undefined;
  let scheduler: Scheduler | undefined;
  const rt: Runtime = {
    state: loaded ?? emptyState(seed, adminToken, config.dialect),
    config,
    clock,
    rng,
    ids,
    dialect,
    changed: () => {
      writer?.schedule();
      scheduler?.poke();
    },
    stepSet: (o) => scheduler?.stepSet(o),
    attemptSet: (d) => scheduler?.attemptSet(d),
    log,
  };
  rt.state.admin_token = adminToken;

  let credentials: SandboxCredentials;
  if (loaded) {
    credentials = { ...defaultKeyOf(rt.state, options, clock.now()), adminToken, partnerId: rt.state.default_partner_id };
  } else {
    const apiKey = options.apiKey ?? newApiKey();
    const apiSecret = options.apiSecret ?? newApiSecret();
    seedState(rt, { apiKey, apiSecret });
    credentials = { apiKey, apiSecret, adminToken, partnerId: DEFAULT_PARTNER_ID };
  }

  const snapshot = (): SandboxState => {
    rt.state.rng_state = rng.state;
    rt.state.clock_offset_ms = clock.offsetMs;
    return rt.state;
  };
  if (options.stateFile) writeInitialState(options.stateFile, snapshot());
  if (options.stateFile) writer = new StateWriter(options.stateFile, snapshot, (e) => log(`state file not written: ${e.message}`));

  const dispatcher = new DeliveryDispatcher(() => rt);
  scheduler = new Scheduler(() => rt, dispatcher);
  const limiter = new RateLimiter(() => clock.now());
  const idempotency = new IdempotencyStore(() => rt);
  const closing = new AbortController();

  /**
   * The default credentials now: the key the sandbox started with while it is not revoked,
   * else the newest key of the default partner that is not (the one a rotation issued).
   */
  const current = (): SandboxCredentials => {
    if (rt.state.keys[credentials.apiKey]?.revoked_at === null) return credentials;
    let newest: SandboxState['keys'][string] | undefined;
    for (const k of Object.values(rt.state.keys))
      if (k.partner_id === credentials.partnerId && k.revoked_at === null && (!newest || k.created_at >= newest.created_at)) newest = k;
    return newest ? { ...credentials, apiKey: newest.api_key, apiSecret: newest.api_secret } : credentials;
  };

  const api: ApiServices = { rt: () => rt, limiter, idempotency, closing: closing.signal };
  const admin: AdminServices = {
    rt: () => rt,
    credentials: current,
    advance: (ms) => scheduler?.advance(ms),
    reset: () => {
      // The default key survives a reset as it is now: a rotated one stays rotated, so the
      // profile that a rotation updated keeps working.
      credentials = current();
      const fresh = emptyState(seed, adminToken, config.dialect);
      rng.reset(seed);
      clock.offsetMs = rt.state.clock_offset_ms = 0;
      rt.state = fresh;
      seedState(rt, { apiKey: credentials.apiKey, apiSecret: credentials.apiSecret });
      limiter.clear();
      idempotency.clear();
      rt.changed();
    },
  };

  // The Date header by the sandbox clock, made once per second (it has no finer precision).
  let dateSecond = NaN;
  let dateText = '';
  const httpDate = (ms: number): string => {
    const second = Math.floor(ms / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(ms).toUTCString();
    }
    return dateText;
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const traceId = traceIdFrom(req.headers.traceparent);
    res.sendDate = false;
    res.setHeader('Date', httpDate(clock.now()));
    res.setHeader('X-Trace-ID', traceId);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    } catch {
      url = new URL('http://sandbox.invalid/');
    }
    const path = url.pathname;
    let outcome: Promise<{ status: number | 'dropped' }>;
    if (path === '/api/v1' || path.startsWith('/api/v1/')) {
      outcome = handleApiRequest(api, req, res, path.slice('/api/v1'.length) || '/', url.searchParams, traceId);
    } else if (path === '/admin' || path.startsWith('/admin/')) {
      outcome = handleAdminRequest(admin, req, res, path.slice('/admin'.length) || '/', url.searchParams);
    } else {
      const reply = dialect.errorReply(
        new SandboxHttpError(
          'NOT_FOUND',
          `No endpoint at ${req.method ?? 'GET'} ${path}; the API lives under /api/v1 and the admin surface under /admin`,
        ),
      );
      send(res, reply);
      outcome = Promise.resolve({ status: reply.status });
    }
    outcome
      .catch(() => {
        const reply = dialect.errorReply(
          new SandboxHttpError('INTERNAL_ERROR', 'The sandbox failed unexpectedly; quote the X-Trace-ID when reporting it'),
        );
        send(res, reply);
        return { status: reply.status };
      })
      .then((o) => rt.log(`${req.method ?? 'GET'} ${path} ${o.status} ${Math.round(performance.now() - started)}ms trace=${traceId}`))
      .catch(() => {});
  };

  /** An error answered straight on the socket, for requests that never reach `listener`. */
  const answerOnSocket = (socket: Duplex, e: SandboxHttpError, withBody: boolean, what: string): void => {
    const reply = dialect.errorReply(e);
    const traceId = traceIdFrom(undefined);
    const headers: Record<string, string> = {
      ...reply.headers,
      Date: httpDate(clock.now()),
      'X-Trace-ID': traceId,
      Connection: 'close',
      'Content-Length': String(Buffer.byteLength(reply.body ?? '')),
    };
    const head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    socket.end(withBody ? head + (reply.body ?? '') : head);
    rt.log(`${what} ${reply.status} trace=${traceId}`);
  };

  const clientError = (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? `The request line and headers are larger than ${maxHeaderSize} bytes; send fewer or shorter headers`
        : `The request is not valid HTTP/1.1 (${err.code ?? 'unparseable'}: ${err.message}); check the request line, the header names and values and the body framing`;
    // A HEAD request's answer has no body (its client would read one as a broken next answer).
    const raw = (err as { rawPacket?: unknown }).rawPacket;
    const isHead = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
    answerOnSocket(socket, new SandboxHttpError('MALFORMED_REQUEST', message), !isHead, `unparseable request (${err.code ?? err.message})`);
  };

  const connect = (req: IncomingMessage, socket: Duplex): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    answerOnSocket(
      socket,
      new SandboxHttpError(
        'METHOD_NOT_ALLOWED',
        `CONNECT ${req.url ?? ''} is not allowed: the sandbox is not a proxy; send GET, POST, PUT or DELETE to /api/v1 or /admin`,
      ),
      true,
      `CONNECT ${req.url ?? ''}`,
    );
  };

  return {
    listener,
    clientError,
    connect,
    runtime: () => rt,
    credentials,
    dialect: config.dialect,
    start: () => {
      writer?.schedule();
      scheduler?.runDue();
    },
    close: async () => {
      closing.abort();
      scheduler?.stop();
      await dispatcher.close();
      writer?.flush();
    },
  };
}
