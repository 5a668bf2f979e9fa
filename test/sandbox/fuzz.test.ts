/**
 * Fuzzing every route of the sandbox over real HTTP on loopback (fast-check; the seed and
 * the shrunk request are printed on failure). The routes come from the sandbox's own
 * tables (the API endpoint table it routes from, the admin route table), so a new route is
 * fuzzed without touching this file, and a route that no request reached fails the suite.
 *
 * Each request is hostile in some way: a body generated from the route's schema with
 * hostile values at any level (wrong types, huge and inexact numbers, deep nesting,
 * unicode, nulls, arrays for objects, unknown and missing fields), malformed JSON, wrong
 * content types, huge bodies, hostile path parameters (`..`, percent-encoding, unicode,
 * prototype keys), query strings (limit=-1, cursor garbage, repeated parameters) and
 * headers (X-Sandbox-Simulate, Idempotency-Key shapes, oversized ones), and unsigned or
 * badly signed variants. Every answer: under 500 (a 503 only when X-Sandbox-Simulate asked
 * for server_error, a dropped connection only for timeout or drop_after_commit), within a
 * few seconds, an error in the format its surface promises, never the API secret or the
 * admin token. Afterwards the sandbox still takes a normal order and its ledger balances.
 *
 * FUZZ_RUNS=20000 npx vitest run test/sandbox/fuzz.test.ts   # a longer local run
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS } from '../../src/sandbox/api/routes.js';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import { DEFAULT_WALLETS, SANDBOX_PRODUCTS, type SandboxHandle } from '../../src/sandbox/index.js';
import {
  describeRequest,
  errorFormatProblem,
  fuzzTargets,
  Only,
  requestArbitrary,
  send,
  ServerClock,
  type Credentials,
  type FuzzRequest,
  type FuzzTarget,
  type Hints,
  type Outcome,
} from './fuzz-helpers.js';
import { admin, api, ledgerConsistent, order, rawExchange, receiver, sandbox, type Receiver } from './helpers.js';

/** Requests per dialect; FUZZ_RUNS raises it for a long local run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const DOCUMENT_RUNS = Math.max(100, Math.round(RUNS / 2.5));
/** "Never a hang": every answer within this bound (a `timeout` fault holds 300 ms at this time scale). */
const ANSWER_WITHIN_MS = 4000;
const LIMITS = { ordersPerMinute: 1_000_000, generalPerHour: 10_000_000 };

/** Values by name that get past validation: live ids (read when the value is drawn), products, amounts. */
function hintsFor(sb: SandboxHandle, otherKey: () => string | undefined, hooks: Receiver): Hints {
  // Half the time one of the newest: what the fuzz itself just made (a held order, a new key).
  const live = (ids: () => string[], none: string) =>
    fc.tuple(fc.boolean(), fc.nat()).map(([newest, i]) => {
      const all = ids();
      if (all.length === 0) return none;
      return newest ? all[all.length - 1 - (i % Math.min(all.length, 4))]! : all[i % all.length]!;
    });
  const orderIds = live(() => Object.keys(sb.state.orders), 'ord_none');
  return {
    product_id: fc.oneof(
      { arbitrary: fc.constantFrom(...Object.values(SANDBOX_PRODUCTS)), weight: 4 },
      { arbitrary: live(() => Object.keys(sb.state.products), 'none'), weight: 1 },
    ),
    denomination: fc.oneof(
      { arbitrary: fc.constantFrom(10, 25, 50, 100), weight: 4 },
      { arbitrary: fc.constantFrom(5, 20, 500, 1000, 10.001, 0.5), weight: 1 },
    ),
    quantity: fc.integer({ min: 1, max: 3 }),
    currency: fc.oneof(
      { arbitrary: fc.constant('USD'), weight: 4 },
      { arbitrary: fc.constantFrom(...Object.keys(DEFAULT_WALLETS), 'XXX', 'KWD'), weight: 1 },
    ),
    amount: fc.oneof(
      fc.integer({ min: 1, max: 5000 }).map((n) => n / 100),
      fc.constantFrom(-5, 1e14, 1e-10),
    ),
    reference: fc.oneof(fc.constantFrom('fuzz-ref-1', 'fuzz-ref-2'), fc.string({ minLength: 1, maxLength: 64 })),
    order_id: orderIds,
    partner_id: live(() => Object.keys(sb.state.partners), 'ptn_none'),
    api_key: live(() => [otherKey()].filter((k): k is string => k !== undefined), 'key_none'),
    event_id: live(() => sb.state.events.map((e) => e.event_id), 'evt_none'),
    drift_id: live(() => Object.keys(sb.state.drifts), 'drf_none'),
    url: fc.constantFrom(hooks.url, 'http://127.0.0.1:9/hooks', 'https://localhost:9/x'),
    seconds: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constantFrom(86_400, 366 * 86_400, 0.001)),
    // POST /admin/wallets/fund posts its entry `count` times (up to a million, for load set-up,
    // seconds of work each): a load knob, not input to fuzz; kept small, or refused.
    count: new Only(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, -1, 1.5, 1_000_001, 2 ** 53, '3', null, []))),
    cached: fc.integer({ min: 0, max: 50 }),
    failed_count: fc.integer({ min: 1, max: 3 }),
    date: fc.constantFrom(new Date().toISOString().slice(0, 10), '2026-02-29', '2024-02-29'),
    status: fc.constantFrom('PENDING', 'DELIVERED', 'REFUNDED', 'pending'),
    limit: fc.constantFrom(1, 2, 200),
  };
}

/** Whether an answer is a refusal of the route or the caller, before the route's own checks. */
function stoppedEarly(o: Extract<Outcome, { kind: 'response' }>): boolean {
  if (o.status === 401 || o.status === 405 || o.status === 415 || o.status === 413 || o.status === 429) return true;
  return o.status === 404 && /No (admin route|endpoint) at/.test(o.text);
}

interface Context {
  sb: SandboxHandle;
  creds: Credentials;
  clock: ServerClock;
  /** Routes that answered past routing and authentication at least once, and those that answered 2xx. */
  reached: Map<string, number>;
  succeeded: Map<string, number>;
}

/** The fault X-Sandbox-Simulate asks for, as the server reads it (repeated lines are joined with ", "). */
function simulated(r: FuzzRequest): string | undefined {
  const v = r.headers['x-sandbox-simulate'];
  const value = Array.isArray(v) ? v.join(', ') : v;
  return value === undefined ? undefined : value.trim().toLowerCase();
}

const headerBytes = (r: FuzzRequest) =>
  Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, r.relTarget.length);

/** Send one request and check the answer; throws (with the request) when it breaks a promise. */
async function check(ctx: Context, r: FuzzRequest): Promise<void> {
  const o = await send(ctx.sb, r, ctx.creds, ctx.clock, ANSWER_WITHIN_MS);
  const where = () => describeRequest(r);
  if (o.kind === 'timeout') throw new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${where()}`);
  const fault = r.target.surface === 'api' ? simulated(r) : undefined;
  if (o.kind === 'dropped') {
    // The faults that drop the connection on purpose.
    if (fault === 'timeout' || fault === 'drop_after_commit') return;
    throw new Error(`the connection was dropped without an answer (${o.error}): ${where()}`);
  }
  ctx.clock.saw(o.headers.date);
  const traceId = o.headers['x-trace-id'];
  if (typeof traceId !== 'string' || !/^[0-9a-f]{32}$/.test(traceId))
    throw new Error(`answer ${o.status} without an X-Trace-ID: ${where()}`);
  for (const secret of [ctx.creds.apiSecret, ctx.creds.adminToken]) {
    if (o.text.includes(secret)) throw new Error(`the answer ${o.status} carries a secret: ${where()}`);
  }
  const allowed503 = o.status === 503 && fault === 'server_error';
  if (o.status >= 500 && !allowed503) throw new Error(`answer ${o.status} ${o.text.slice(0, 300)}: ${where()}`);
  if (o.status >= 400 && r.method.toUpperCase() !== 'HEAD') {
    // The surface is where the path lands once `.` and `..` are resolved: outside both, the dialect's format.
    const landed = new URL(`${r.target.surface === 'api' ? '/api/v1' : '/admin'}${r.relTarget}`, 'http://x').pathname;
    const onAdmin = landed === '/admin' || landed.startsWith('/admin/');
    const format = onAdmin || ctx.sb.dialect === 'decisions' ? 'envelope' : 'document';
    let why = errorFormatProblem(format, o.status, o.headers, o.text, onAdmin);
    // What node:http cannot parse (headers near its 16 KiB limit, a byte past ASCII in the
    // path) is refused before the path is known: in the dialect's format.
    const dialectFormat = ctx.sb.dialect === 'decisions' ? 'envelope' : 'document';
    if (
      why &&
      (headerBytes(r) > 15_000 || /[^\x21-\x7e]/.test(r.relTarget)) &&
      errorFormatProblem(dialectFormat, o.status, o.headers, o.text) === undefined
    )
      why = undefined;
    if (why) throw new Error(`answer ${o.status} is not in the error format (${why}): ${o.text.slice(0, 300)}: ${where()}`);
  }
  if (r.method.toUpperCase() === r.target.method && !stoppedEarly(o))
    ctx.reached.set(r.target.name, (ctx.reached.get(r.target.name) ?? 0) + 1);
  if (o.status < 300 && r.method.toUpperCase() === r.target.method)
    ctx.succeeded.set(r.target.name, (ctx.succeeded.get(r.target.name) ?? 0) + 1);
}

/**
 * Weight of a route among the targets: a reset wipes what the others work on, so it is
 * drawn less; so are the endpoints a dialect does not serve (each answers 404 alike).
 */
const weightOf = (t: FuzzTarget, dialect: 'decisions' | 'document') => {
  if (!served(t, dialect)) return 1;
  if (t.path === '/reset') return 2;
  // The writes that move money: the most to lose, drawn twice as often.
  return t.surface === 'api' && t.signed ? 12 : 6;
};

const served = (t: FuzzTarget, dialect: 'decisions' | 'document') =>
  t.surface === 'admin' || dialect === 'decisions' || !t.endpoint?.extension;

/**
 * Raw requests at the edge of HTTP/1.1: request lines, framing (Content-Length and
 * Transfer-Encoding in every wrong way) and header lines, with a body or not. The client
 * half-closes after writing, so a request left incomplete ends too.
 */
function rawRequest(adminToken: string): fc.Arbitrary<string> {
  const line = fc.oneof(
    fc.constantFrom(
      'Content-Length: abc',
      'Content-Length: -1',
      'Content-Length: 5',
      'Content-Length: 2\r\nContent-Length: 3',
      'Content-Length: 99999999999999999999',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip',
      'Transfer-Encoding: chunked\r\nContent-Length: 3',
      'Transfer-Encoding: chunked, identity',
      'X-Folded: a\r\n b',
      'NoColon',
      ': no-name',
      'X Space: v',
      'X-Ctl: a\u0001b',
      'Host: a\r\nHost: b',
      'Content-Type: application/json',
      `Authorization: Bearer ${adminToken}`,
      'X-API-Key: __proto__',
      'Expect: 100-continue',
      'Upgrade: websocket\r\nConnection: Upgrade',
      'Connection: keep-alive',
    ),
    fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((v) => `X-Junk: ${v.replace(/[\r\n]/g, '')}`),
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'G E T', 'get', 'CONNECT', 'X'.repeat(40)),
      target: fc.constantFrom(
        '/api/v1/wallets',
        '/api/v1/orders',
        '/admin/',
        '/admin/reset',
        '*',
        'http://127.0.0.1/api/v1/wallets',
        '/api/v1/../admin',
        '',
        '/api/v1/%',
        '/a b',
        '//admin',
      ),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'HTTP/1.1 ', 'http/1.1', 'HTTP/9.9', ''),
      lines: fc.array(line, { maxLength: 4 }),
      body: fc.oneof(
        fc.constant(''),
        fc.constantFrom('{}', '0\r\n\r\n', 'zz\r\n', '5\r\nab\r\n', '{"items":['),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }),
      ),
      eol: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
    })
    .map(
      ({ method, target, version, lines, body, eol }) =>
        [`${method} ${target} ${version}`, 'Host: 127.0.0.1', ...lines].join(eol) + eol + eol + body,
    );
}

/** After the fuzz: a normal order still works, with its exact debit, and every partner's ledger balances. */
async function expectHealthy(sb: SandboxHandle): Promise<void> {
  expect((await admin(sb, 'GET', '/')).status).toBe(200);
  expect((await admin(sb, 'POST', '/wallets/fund', { currency: 'USD', amount: 1000 })).status).toBe(200);
  expect((await admin(sb, 'PUT', '/stock', { product_id: SANDBOX_PRODUCTS.instant, cached: 10, vendor_available: true })).status).toBe(200);
  // The fuzz moves the sandbox clock: sign with the server's time.
  const now = Math.floor(Date.parse((await admin(sb, 'GET', '/clock')).body.now) / 1000);
  const before = sb.state.partners[sb.partnerId]!.wallets.USD!.available_minor;
  const placed = await order(sb, [{ product_id: SANDBOX_PRODUCTS.instant, denomination: 25, quantity: 2 }], {}, { timestamp: now });
  expect(placed.status, placed.text).toBe(sb.dialect === 'decisions' ? 201 : 200);
  expect(placed.body.status).toBe('DELIVERED');
  expect(sb.state.partners[sb.partnerId]!.wallets.USD!.available_minor).toBe(before - 5000);
  expect((await api(sb, 'GET', `/orders/${placed.body.order_id}`)).status).toBe(200);
  for (const partnerId of Object.keys(sb.state.partners)) expect(ledgerConsistent(sb, partnerId), `ledger of ${partnerId}`).toBe(true);
}

function fuzzSuite(dialect: 'decisions' | 'document', runs: number): void {
  let sb: SandboxHandle;
  let hooks: Receiver;
  let ctx: Context;
  const targets = fuzzTargets();

  beforeAll(async () => {
    sb = await sandbox({ dialect, enablePlanned: true, limits: LIMITS });
    hooks = await receiver();
    // Something for the routes that act on existing records: orders on each path, a webhook, another partner, a drift.
    expect((await api(sb, 'POST', '/webhooks', { body: { url: hooks.url } })).status).toBeLessThan(300);
    for (const p of [SANDBOX_PRODUCTS.instant, SANDBOX_PRODUCTS.async, SANDBOX_PRODUCTS.gated, SANDBOX_PRODUCTS.partial]) {
      expect((await order(sb, [{ product_id: p, denomination: 10, quantity: 2 }])).status).toBeLessThan(300);
    }
    const other = await admin(sb, 'POST', '/partners', { name: 'Fuzz partner', wallets: { USD: 100 } });
    expect(other.status).toBe(201);
    const delivered = Object.values(sb.state.orders).find((o) => o.status === 'DELIVERED')!;
    expect((await admin(sb, 'POST', '/drifts', { order_id: delivered.order_id })).status).toBe(201);
    ctx = {
      sb,
      creds: {
        apiKey: sb.apiKey,
        apiSecret: sb.apiSecret,
        adminToken: sb.adminToken,
        otherKey: { apiKey: other.body.key.api_key, apiSecret: other.body.key.api_secret },
      },
      clock: new ServerClock(),
      reached: new Map(),
      succeeded: new Map(),
    };
  });

  afterAll(async () => {
    await sb?.close();
    await hooks?.close();
  });

  it('enumerates every route the sandbox serves: the API endpoint table (its handler table) and the admin route table', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual(ENDPOINTS.map((e) => e.id).sort());
    const names = targets.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(targets.filter((t) => t.surface === 'api')).toHaveLength(ENDPOINTS.length);
  });

  it(
    `${runs} requests to every route, most of them hostile: under 500, an error in the surface's format, an answer within ${ANSWER_WITHIN_MS / 1000} s, no secret`,
    async () => {
      const hints = hintsFor(sb, () => ctx.creds.otherKey?.apiKey, hooks);
      const request = fc.oneof(...targets.map((t) => ({ arbitrary: requestArbitrary(t, hints), weight: weightOf(t, dialect) })));
      await fc.assert(
        fc.asyncProperty(request, (r) => check(ctx, r)),
        { numRuns: runs, verbose: 1 },
      );
    },
    Math.max(120_000, runs * 30),
  );

  it(
    `${Math.round(runs / 5)} requests node:http cannot parse, or only just (bad request lines, framing, headers): every answer under 500, in an error format, with X-Trace-ID, within ${ANSWER_WITHIN_MS / 1000} s`,
    async () => {
      await fc.assert(
        fc.asyncProperty(rawRequest(sb.adminToken), async (raw) => {
          const received = await rawExchange(sb, raw, ANSWER_WITHIN_MS);
          if (received === undefined) throw new Error(`no answer within ${ANSWER_WITHIN_MS} ms to ${JSON.stringify(raw)}`);
          // An interim 100 Continue (Expect: 100-continue) comes before the answer.
          const answer = received.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
          const statuses = [...answer.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
          expect(statuses.length, `${JSON.stringify(raw)} → ${JSON.stringify(answer)}`).toBeGreaterThan(0);
          for (const status of statuses) expect(status, `${JSON.stringify(raw)} → ${JSON.stringify(answer)}`).toBeLessThan(500);
          const [head = '', ...rest] = answer.split('\r\n\r\n');
          expect(head, JSON.stringify(raw)).toMatch(/\r\nX-Trace-ID: [0-9a-f]{32}\r\n/i);
          const status = statuses[0]!;
          const length = Number(/\r\nContent-Length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (status >= 400 && length > 0 && !raw.startsWith('HEAD ')) {
            const headers = { 'content-type': /\r\nContent-Type: ([^\r]*)/i.exec(head)?.[1] };
            const body = Buffer.from(rest.join('\r\n\r\n')).subarray(0, length).toString();
            const formats = ['envelope', 'document'] as const;
            const fits = formats.filter(
              (f) => (f === 'envelope' || dialect === 'document') && errorFormatProblem(f, status, headers, body) === undefined,
            );
            expect(fits, `${JSON.stringify(raw)} → ${JSON.stringify(answer)}`).not.toEqual([]);
          }
        }),
        { numRuns: Math.round(runs / 5) },
      );
    },
    Math.max(120_000, runs * 30),
  );

  it('every route was reached past routing and authentication (a new route is fuzzed, or this fails)', async () => {
    const fuzzed = targets.filter((t) => served(t, dialect));
    // A route the random draw happened to miss gets more of its own requests (seeded), each
    // checked like the rest: the draw is random, reaching every route is not left to chance.
    const hints = hintsFor(sb, () => ctx.creds.otherKey?.apiKey, hooks);
    for (const t of fuzzed.filter((x) => (ctx.reached.get(x.name) ?? 0) === 0)) {
      for (const r of fc.sample(requestArbitrary(t, hints), { numRuns: 200, seed: 7 })) {
        await check(ctx, r);
        if ((ctx.reached.get(t.name) ?? 0) > 0) break;
      }
    }
    const missed = fuzzed.filter((t) => (ctx.reached.get(t.name) ?? 0) === 0).map((t) => t.name);
    expect(missed, `not reached: ${missed.join(', ')}; succeeded: ${JSON.stringify(Object.fromEntries(ctx.succeeded))}`).toEqual([]);
  }, 60_000);

  it('is healthy afterwards: a normal order with its exact debit, every ledger balanced', async () => {
    await expectHealthy(sb);
  });
}

describe('sandbox fuzz: decisions dialect', () => {
  fuzzSuite('decisions', RUNS);
});

describe('sandbox fuzz: document dialect', () => {
  fuzzSuite('document', DOCUMENT_RUNS);
});
