/**
 * The transport of a command that sends its requests one or a few at a time: Node's own
 * http/https client with a keep-alive agent. It loads nothing beyond Node's built-in
 * modules and parses HTTP with Node's native parser, where undici's is WebAssembly that
 * every new process compiles again: about 10-20 ms of a one-shot command on Node 22 and 24
 * (docs/performance.md). A batch (`orders create --from`) and the sandbox's webhook sender
 * use undici's pooled agent (undici.ts), which starts slower and costs less CPU a request.
 *
 * Both answer the narrow `Transport` interface the same way (status, lower-case headers,
 * the body as text) and fail with the same error codes (ECONNREFUSED, ECONNRESET, HPE_*,
 * UND_ERR_CONNECT_TIMEOUT for a connection not made in time), so the pipeline's retry
 * policy and messages cannot tell them apart; test/core/http/transports.test.ts runs the
 * same cases through both.
 */
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Transport, TransportOptions } from './undici.js';

type HttpModule = typeof import('node:http');

// Loaded on first use, through the runtime: no import for the bundle to hoist.
const httpModule = (protocol: string): HttpModule =>
  process.getBuiltinModule(protocol === 'https:' ? 'node:https' : 'node:http') as HttpModule;

function connectTimeoutError(ms: number): Error {
  return Object.assign(new Error(`could not connect within ${ms} ms`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
}

/** A request's signal as undici's request API takes it: an AbortSignal, or the EventEmitter form (signals.ts). */
type RequestSignal =
  | AbortSignal
  | {
      aborted: boolean;
      reason?: unknown;
      once(event: 'abort', f: () => void): unknown;
      removeListener(event: 'abort', f: () => void): unknown;
    };

/** Call `f` once `signal` aborts; returns what stops following it. */
function onAbort(signal: RequestSignal, f: () => void): () => void {
  if (signal instanceof AbortSignal) {
    signal.addEventListener('abort', f, { once: true });
    return () => signal.removeEventListener('abort', f);
  }
  signal.once('abort', f);
  return () => signal.removeListener('abort', f);
}

function abortError(signal: RequestSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : Object.assign(new Error('the request was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** The response as undici's request API gives it, the body already read. */
function responseData(res: IncomingMessage, text: string): Dispatcher.ResponseData {
  return {
    statusCode: res.statusCode ?? 0,
    headers: res.headers,
    body: { text: () => Promise.resolve(text) },
  } as unknown as Dispatcher.ResponseData;
}

export function createNodeTransport(options: TransportOptions): Transport {
  const agents = new Map<string, Agent>();
  const inFlight = new Set<ClientRequest>();
  let idle: (() => void) | undefined;

  const agentFor = (protocol: string): Agent => {
    let agent = agents.get(protocol);
    if (!agent) {
      agent = new (httpModule(protocol).Agent)({ keepAlive: true });
      agents.set(protocol, agent);
    }
    return agent;
  };

  const settled = (req: ClientRequest): void => {
    inFlight.delete(req);
    if (inFlight.size === 0) idle?.();
  };

  function request(o: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    return new Promise((resolve, reject) => {
      // The request's signal, as undici follows it: an AbortSignal or its EventEmitter form.
      const signal = (o.signal ?? undefined) as RequestSignal | undefined;
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      // The target goes out exactly as signed (a URL object would normalise it).
      const origin = new URL(String(o.origin));
      const body = typeof o.body === 'string' ? Buffer.from(o.body, 'utf8') : undefined;
      const headers = { ...(o.headers as Record<string, string>) };
      if (body) headers['content-length'] = String(body.length);
      let req: ClientRequest;
      try {
        req = httpModule(origin.protocol).request({
          protocol: origin.protocol,
          hostname: origin.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: origin.port,
          path: o.path,
          method: o.method,
          headers,
          agent: agentFor(origin.protocol),
        });
      } catch (e) {
        // Refused while it was built (a character a request line cannot carry): nothing was sent.
        reject(Object.assign(new Error((e as Error).message), { code: 'INVALID_REQUEST', cause: e }));
        return;
      }
      inFlight.add(req);
      let connectTimer: NodeJS.Timeout | undefined;
      const unfollow = signal ? onAbort(signal, () => req.destroy(abortError(signal))) : undefined;
      const fail = (e: Error): void => {
        clearTimeout(connectTimer);
        unfollow?.();
        settled(req);
        reject(e);
      };
      req.on('error', fail);
      req.on('socket', (socket) => {
        if (!socket.connecting) return; // a kept-alive connection
        connectTimer = setTimeout(() => req.destroy(connectTimeoutError(options.connectTimeoutMs)), options.connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connectTimer));
      });
      req.on('response', (res) => {
        clearTimeout(connectTimer);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          unfollow?.();
          settled(req);
          resolve(responseData(res, Buffer.concat(chunks).toString('utf8')));
        });
      });
      req.end(body);
    });
  }

  const closeAgents = (): void => {
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
  };

  return {
    request,
    /** Let the requests in flight finish, then close every connection. */
    close: () =>
      new Promise<void>((resolve) => {
        if (inFlight.size === 0) {
          closeAgents();
          resolve();
          return;
        }
        idle = () => {
          idle = undefined;
          closeAgents();
          resolve();
        };
      }),
    destroy: () => {
      for (const req of inFlight) req.destroy();
      inFlight.clear();
      closeAgents();
      return Promise.resolve();
    },
  };
}
