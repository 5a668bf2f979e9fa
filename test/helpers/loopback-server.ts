/**
 * A small node:http server on 127.0.0.1, port 0, for tests of the request pipeline: it
 * records every request (method, target, headers, raw body) and answers through a handler
 * that sees the request number, so tests can script "fail twice, then succeed".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The request target as received, e.g. `/api/v1/orders?x=1`. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** 1 for the first request the server saw. */
  n: number;
}

export type LoopbackHandler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `<origin>/api/v1` */
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Answer JSON with a status and optional headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An error envelope of the decisions file. */
export function sendError(
  res: ServerResponse,
  status: number,
  name: string,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { name, code, message } }, headers);
}

/** Send a recorded request on to `origin` (a sandbox behind this server), as it came, and give its answer. */
export function forward(origin: string, req: RecordedRequest): Promise<Response> {
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host' && e[0] !== 'connection'),
  );
  return fetch(origin + req.target, { method: req.method, headers, body: req.body || undefined });
}

/** Send a recorded request on to `origin` (a sandbox behind this server) and answer with what it answers. */
export async function forwardTo(origin: string, req: RecordedRequest, res: ServerResponse): Promise<void> {
  const answer = await forward(origin, req);
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** Drop the connection without answering (after the body was read). */
export function resetSocket(raw: IncomingMessage): void {
  raw.socket.destroy();
}

export async function startLoopbackServer(handler: LoopbackHandler, options: { port?: number } = {}): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const rec: RecordedRequest = {
        method: raw.method ?? '',
        target: raw.url ?? '',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        n: requests.length + 1,
      };
      requests.push(rec);
      Promise.resolve(handler(rec, res, raw)).catch((e: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { name: 'TestServerError', code: 'TEST', message: String(e) } });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was free a moment ago (nothing listens on it now). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The environment in which the CLI takes `server` for its API: a key and secret, no retries, no colour. */
export function cliEnvFor(server: LoopbackServer): Record<string, string> {
  return { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's', VOUCHERS_MAX_RETRIES: '0', NO_COLOR: '1' };
}

/** A proxy in front of a sandbox that stops the orders of a run at a point of the test's choosing (startOrderGate). */
export interface OrderGate {
  /** `<origin>/api/v1` of the proxy: the base URL to give the client. */
  baseUrl: string;
  server: LoopbackServer;
  /** Resolves once `n` orders are held: a client running `n` at a time is then stopped whole. */
  held(n: number): Promise<void>;
  /** Send the held orders on as they came, and every later request. */
  pass(): void;
  /** Cut the held orders' connections (nothing of them reaches the sandbox), and send every later request on. */
  drop(): void;
  /** Drop the held orders and stop listening: from then on the server is down (connections refused). */
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of `origin` (a sandbox) that passes every request on as it came,
 * except the orders (POST …/orders) after the first `after`: each is held, not sent on,
 * until the test lets them go (pass) or drops them. So a test knows exactly where a run
 * stands while it does something else: no count of lines or orders is raced.
 */
export async function startOrderGate(origin: string, after: number): Promise<OrderGate> {
  let orders = 0;
  let open = false;
  let dropping = false;
  const waiting: { raw: IncomingMessage; go: () => void }[] = [];
  const watchers: { n: number; resolve: () => void }[] = [];
  const server = await startLoopbackServer(async (req, res, raw) => {
    const isOrder = req.method === 'POST' && /\/orders$/.test(req.target.split('?')[0] ?? '');
    if (isOrder && !open && (orders += 1) > after) {
      await new Promise<void>((go) => {
        waiting.push({ raw, go });
        for (const w of watchers.filter((x) => waiting.length >= x.n)) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve();
        }
      });
      if (dropping) return resetSocket(raw);
    }
    return forwardTo(origin, req, res);
  });
  const letGo = (drop: boolean) => {
    open = true;
    dropping = drop;
    for (const w of waiting.splice(0)) w.go();
  };
  return {
    baseUrl: server.baseUrl,
    server,
    held: (n) => (waiting.length >= n ? Promise.resolve() : new Promise((resolve) => watchers.push({ n, resolve }))),
    pass: () => letGo(false),
    drop: () => letGo(true),
    close: async () => {
      letGo(true);
      await server.close();
    },
  };
}
