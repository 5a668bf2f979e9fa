/**
 * The pace shared by every process of one API key: a state file per key in the config
 * folder, read and rewritten under a lock file. Two clients (or Pacers) stand for two
 * processes; the fake clock stands for time, so nothing here sleeps.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyProfile } from '../../helpers/profile.js';
import { createClient } from '../../../src/core/http/client.js';
import { createClientForProfile, paceNotices } from '../../../src/core/run/profile-client.js';
import { paceFile, paceFileName } from '../../../src/core/http/pace-file.js';
import { Pacer } from '../../../src/core/http/pacing.js';
import type { ApiClient } from '../../../src/core/http/types.js';
import type { ResolvedProfile } from '../../../src/core/config/types.js';
import { CliError } from '../../../src/core/errors/index.js';
import { openRequestLog } from '../../../src/core/journal/request-log.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { testIO } from '../../helpers/io.js';
import { fakeClock, sequentialIds } from './fake-clock.js';
import { zombie } from '../../helpers/zombie.js';

const KEY = 'pk_test_shared_pacing_key';
const SECRET = 'sk_test_shared_pacing_secret_0123456789';
const BASE = 'http://127.0.0.1:4010/api/v1';
const LIMITS = (orders: number) => ({ orders_per_minute: orders, general_per_hour: 100_000 });

const tempDir = () => mkdtempSync(join(tmpdir(), 'vouchers-pacing-'));

let server: LoopbackServer | undefined;
const clients: ApiClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
  server = undefined;
});

describe('the pace file', () => {
  it('is shared by two Pacers of one API key: the second gets what the first left', () => {
    const dir = tempDir();
    const clock = fakeClock();
    const a = new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY) });
    const b = new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY) });
    // One Pacer alone gives [0, 0, 0, 0, 62 s]; alternating two must give the same.
    expect([a, b, a, b, a].map((p) => p.reserve('orders'))).toEqual([0, 0, 0, 0, 62_000]);
    // Another API key (or another server) has a pace of its own.
    const other = new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, 'pk_other') });
    expect(other.reserve('orders')).toBe(0);
    expect(new Pacer(clock, LIMITS(4), { store: paceFile(dir, 'http://127.0.0.1:4011/api/v1', KEY) }).reserve('orders')).toBe(0);
  });

  it('written under a clock a day ahead (the clock since set back, or another machine on a shared folder): its far-future times are dropped, not waited for', () => {
    const dir = tempDir();
    const ahead = fakeClock(Date.UTC(2026, 10, 23, 9, 30, 0));
    const a = new Pacer(ahead, LIMITS(4), { store: paceFile(dir, BASE, KEY) });
    // The day-ahead process used up its window and met a 429 with a minute's reset.
    expect([1, 2, 3, 4].map(() => a.reserve('orders'))).toEqual([0, 0, 0, 0]);
    a.observe('orders', 0, 60_000);
    const now = fakeClock();
    const b = new Pacer(now, LIMITS(4), { store: paceFile(dir, BASE, KEY) });
    expect(b.reserve('orders')).toBe(0);
    expect(b.reserve('general')).toBe(0);
    // Reservations within the horizon still count: the same process's window fills as before.
    expect([b, b, b, b].map((p) => p.reserve('orders'))).toEqual([0, 0, 0, 62_000]);
  });

  it('is named by a hash, has mode 0600 in a 0700 folder, and holds neither the key nor the secret', () => {
    const dir = join(tempDir(), 'pacing');
    new Pacer(fakeClock(), LIMITS(4), { store: paceFile(dir, BASE, KEY) }).reserve('orders');
    const files = readdirSync(dir);
    expect(files).toEqual([paceFileName(BASE, KEY)]);
    expect(files[0]).toMatch(/^[0-9a-f]{16}\.json$/);
    const path = join(dir, files[0]!);
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('127.0.0.1');
    // Counts per cell; at 100 000/hour a reservation leases 83 general slots (1/20 of a
    // minute's share) to use without visiting the file while that minute lasts.
    expect(JSON.parse(text)).toMatchObject({
      v: 2,
      orders: { cells: [[expect.any(Number), 1]], blocked_until: 0 },
      general: { cells: [[expect.any(Number), 83]] },
    });
  });

  it('gives an aborted reservation back to every process', async () => {
    const dir = tempDir();
    const clock = fakeClock();
    const a = new Pacer(clock, LIMITS(1), { store: paceFile(dir, BASE, KEY) });
    const b = new Pacer(clock, LIMITS(1), { store: paceFile(dir, BASE, KEY) });
    await a.acquire('orders');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(a.acquire('orders', controller.signal)).rejects.toThrow('stop');
    expect(b.reserve('orders')).toBe(62_000);
  });

  it('a client that closes gives back the slots of its lease it did not use: a one-shot command under a high limit takes one', async () => {
    const dir = tempDir();
    const clock = fakeClock();
    const general = () =>
      (
        JSON.parse(readFileSync(join(dir, paceFileName(BASE, KEY)), 'utf8')) as { general: { cells: [number, number][] } }
      ).general.cells.reduce((n, [, k]) => n + k, 0);
    // At 100 000/hour a reservation leases 83 general slots.
    const a = new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY) });
    expect(a.reserve('general')).toBe(0);
    expect(general()).toBe(83);
    a.giveBackLeases();
    expect(general()).toBe(1);
    // The client does it as it closes (every command closes its client when it ends).
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { data: [] }));
    const client = createClient({
      baseUrl: server.baseUrl,
      apiKey: KEY,
      apiSecret: SECRET,
      clock,
      ids: sequentialIds(),
      limits: LIMITS(4),
      paceStore: paceFile(dir, server.baseUrl, KEY),
      random: () => 0.5,
    });
    await client.request({ method: 'GET', path: '/wallets' });
    const file = () =>
      (JSON.parse(readFileSync(join(dir, paceFileName(server!.baseUrl, KEY)), 'utf8')) as { general: { cells: [number, number][] } })
        .general.cells;
    expect(file()).toEqual([[expect.any(Number), 83]]);
    await client.close();
    expect(file()).toEqual([[expect.any(Number), 1]]);
  });

  it('shares what the server said (RateLimit-Remaining 0, Reset) with the other processes', () => {
    const dir = tempDir();
    const clock = fakeClock();
    const a = new Pacer(clock, LIMITS(100), { store: paceFile(dir, BASE, KEY) });
    const b = new Pacer(clock, LIMITS(100), { store: paceFile(dir, BASE, KEY) });
    a.observe('orders', 0, 42_000);
    expect(b.reserve('orders')).toBe(42_000);
  });

  it('starts afresh from a torn or foreign state file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, paceFileName(BASE, KEY)), '{"v":1,"orders":{"tok');
    const clock = fakeClock();
    expect(new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY) }).reserve('orders')).toBe(0);
    writeFileSync(join(dir, paceFileName(BASE, KEY)), '{"v":99}');
    expect(new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY) }).reserve('orders')).toBe(0);
  });

  it('is rewritten in place: a shorter state leaves no old byte after it, a foreign long file is cut', () => {
    const dir = tempDir();
    const path = join(dir, paceFileName(BASE, KEY));
    const store = paceFile(dir, BASE, KEY);
    store.update(() => ({ v: 2, note: 'x'.repeat(300) }));
    const inode = statSync(path).ino;
    const long = readFileSync(path, 'utf8');
    store.update(() => ({ v: 2 }));
    const short = readFileSync(path, 'utf8');
    // The same file (no temporary file renamed over it), as long as before, and only the new state.
    expect(statSync(path).ino).toBe(inode);
    expect(short.length).toBe(long.length);
    expect(short).toMatch(/^\{"v":2\} +\n$/);
    expect(JSON.parse(short)).toEqual({ v: 2 });
    let seen: unknown;
    store.update((state) => {
      seen = state;
      return { v: 2, n: 1 };
    });
    expect(seen).toEqual({ v: 2 });
    // A file far longer than any state is not padded out to its length but cut.
    writeFileSync(path, `{"foreign":"${'y'.repeat(100_000)}"}`);
    store.update(() => ({ v: 2 }));
    expect(readFileSync(path, 'utf8')).toBe('{"v":2}\n');
    expect(readdirSync(dir)).toEqual([paceFileName(BASE, KEY)]);
  });

  it('takes over a lock left by a process that is gone, or one older than the stale age', () => {
    const dir = tempDir();
    const lock = join(dir, `${paceFileName(BASE, KEY)}.lock`);
    const clock = fakeClock();
    const debug: string[] = [];
    const pacer = new Pacer(clock, LIMITS(4), {
      store: paceFile(dir, BASE, KEY, { lockWaitMs: 60_000 }),
      onFallback: (m) => debug.push(m),
    });
    // A pid that cannot be alive (above the kernel's pid_max), on this host.
    writeFileSync(lock, `2147483646 ${hostname()} deadbeef`);
    expect(pacer.reserve('orders')).toBe(0);
    expect(existsSync(lock)).toBe(false);
    // A live holder (this process) whose lock is a minute old: hung, taken over.
    writeFileSync(lock, `${process.pid} elsewhere cafe`);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    expect(pacer.reserve('orders')).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(debug).toEqual([]);
    expect(pacer.shared).toBe(true);
  });

  // /proc tells a zombie apart; other platforms count it as running until it is reaped.
  it.runIf(process.platform === 'linux')(
    'takes over at once a fresh lock whose holder exited and is not reaped yet (a zombie)',
    async () => {
      const dir = tempDir();
      const lock = join(dir, `${paceFileName(BASE, KEY)}.lock`);
      const debug: string[] = [];
      const pacer = new Pacer(fakeClock(), LIMITS(4), {
        store: paceFile(dir, BASE, KEY, { lockWaitMs: 20 }),
        onFallback: (m) => debug.push(m),
      });
      const z = await zombie();
      try {
        writeFileSync(lock, `${z.pid} ${hostname()} feed`);
        expect(pacer.reserve('orders')).toBe(0);
        expect(existsSync(lock)).toBe(false);
        expect(debug).toEqual([]);
      } finally {
        z.end();
      }
    },
  );

  it('paces in-process only for a request whose lock a live process holds too long', () => {
    const dir = tempDir();
    const lock = join(dir, `${paceFileName(BASE, KEY)}.lock`);
    const clock = fakeClock();
    const debug: string[] = [];
    const pacer = new Pacer(clock, LIMITS(4), { store: paceFile(dir, BASE, KEY, { lockWaitMs: 20 }), onFallback: (m) => debug.push(m) });
    writeFileSync(lock, `${process.pid} elsewhere cafe`);
    expect(pacer.reserve('orders')).toBe(0);
    expect(debug).toEqual([
      expect.stringMatching(/^pacing this request in-process only: the pacing lock .*\.lock is held by a live process/),
    ]);
    expect(existsSync(lock)).toBe(true); // not ours to remove
    expect(pacer.shared).toBe(true);
  });

  it('falls back to pacing in-process when the folder cannot be used, saying so once', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'not-a-folder'), '');
    const clock = fakeClock();
    const debug: string[] = [];
    const pacer = new Pacer(clock, LIMITS(4), {
      store: paceFile(join(parent, 'not-a-folder', 'pacing'), BASE, KEY),
      onFallback: (m) => debug.push(m),
    });
    expect([1, 2, 3, 4, 5].map(() => pacer.reserve('orders'))).toEqual([0, 0, 0, 0, 62_000]);
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatch(/^pacing is per process from now on: the shared pacing file .* cannot be used \(ENOTDIR/);
    expect(pacer.shared).toBe(false);
  });

  // Skipped as root (root writes to a read-only folder anyway) and on Windows (no chmod
  // semantics): the ENOTDIR test above covers the same fallback there.
  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('falls back when the config folder is read-only', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'ro'), { mode: 0o500 });
    const debug: string[] = [];
    const pacer = new Pacer(fakeClock(), LIMITS(4), {
      store: paceFile(join(dir, 'ro', 'pacing'), BASE, KEY),
      onFallback: (m) => debug.push(m),
    });
    expect([1, 2, 3, 4, 5].map(() => pacer.reserve('orders'))).toEqual([0, 0, 0, 0, 62_000]);
    expect(debug).toEqual([expect.stringMatching(/cannot be used \(EACCES/)]);
  });
});

describe('two clients of one API key (two processes)', () => {
  it('share one window: across both, no 60 s holds more than the limit', async () => {
    const clock = fakeClock();
    const arrivals: number[] = [];
    server = await startLoopbackServer((req, res) => {
      arrivals.push(clock.now());
      sendJson(res, 201, { order_id: `ord_${req.n}` });
    });
    const dir = tempDir();
    const make = () => {
      const c = createClient({
        baseUrl: server!.baseUrl,
        apiKey: KEY,
        apiSecret: SECRET,
        clock,
        ids: sequentialIds(),
        limits: LIMITS(4),
        paceStore: paceFile(dir, server!.baseUrl, KEY),
      });
      clients.push(c);
      return c;
    };
    const a = make();
    const b = make();
    for (let i = 0; i < 10; i++)
      await (i % 2 ? b : a).request({ method: 'POST', path: '/orders', body: { product_id: 'p', quantity: 1 }, raw: true });
    expect(arrivals).toHaveLength(10);
    // The 5th request across both already waits: each client alone would have let 2 more through.
    expect(clock.sleeps).toEqual([62_000, 62_000]);
    for (let i = 0; i + 4 < arrivals.length; i++) expect(arrivals[i + 4]! - arrivals[i]!).toBeGreaterThanOrEqual(60_000);
  });

  it('a library client without a store keeps its own pace', async () => {
    const clock = fakeClock();
    server = await startLoopbackServer((req, res) => sendJson(res, 201, { order_id: `ord_${req.n}` }));
    for (let n = 0; n < 2; n++) {
      const c = createClient({ baseUrl: server.baseUrl, apiKey: KEY, apiSecret: SECRET, clock, limits: LIMITS(4) });
      clients.push(c);
      for (let i = 0; i < 3; i++) await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    }
    expect(clock.sleeps).toEqual([]);
  });
});

describe("the CLI's profile client", () => {
  const profile = (over: Partial<ResolvedProfile> = {}): ResolvedProfile =>
    emptyProfile({ exists: true, base_url: server!.baseUrl, api_key: KEY, api_secret: SECRET, limits: LIMITS(2), ...over });
  const deps = (io = testIO(), globals = {}) => ({
    io,
    clock: fakeClock(),
    ids: sequentialIds(),
    requestLog: openRequestLog(tempDir()),
    globals,
    pacingDir: join(tempDir(), 'pacing'),
  });

  it('says a wait that concurrent requests share once: a long bulk run is a line per window, not per row', async () => {
    server = await startLoopbackServer((req, res) => sendJson(res, 201, { order_id: `ord_${req.n}` }));
    const io = testIO({ tty: false });
    const d = deps(io);
    const c = createClientForProfile(profile({ limits: LIMITS(40) }), d);
    clients.push(c);
    // 200 orders, 4 at a time: 40 a window, then every request in flight waits for the next one.
    let next = 0;
    const worker = async () => {
      while (next++ < 200) await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const waits = d.clock.sleeps.filter((ms) => ms >= 1_000);
    const said = io
      .stderrText()
      .split('\n')
      .filter((l) => l.startsWith('Waiting'));
    expect(waits.length).toBeGreaterThanOrEqual(4);
    expect(said).toHaveLength(4);
  });

  it('says the waits of requests in flight a slot apart once, then about every 30 s; a much later end is said at once', () => {
    const io = testIO({ tty: false });
    const clock = fakeClock();
    const say = paceNotices({ io, clock, globals: {} });
    const wait = (ms: number) => say(`Waiting ${ms / 1000}s…`, 'RATE_LIMIT_WAIT', ms);
    // 16 requests in flight, each paced one slot (0.6 s at 100/min) after the one before.
    for (let i = 0; i < 16; i++) wait(40_000 + i * 600);
    expect(io.stderrText()).toBe('Waiting 40s…\n');
    // 10 s later the next requests wait for slots past the one said: not yet worth a line.
    clock.advance(10_000);
    for (let i = 0; i < 16; i++) wait(40_000 + i * 600);
    expect(io.stderrText()).toBe('Waiting 40s…\n');
    // 30 s after the first line, the run is said to be alive again.
    clock.advance(20_000);
    wait(45_000);
    expect(io.stderrText()).toBe('Waiting 40s…\nWaiting 45s…\n');
    // A wait ending far past the one said (a 429 reset an hour out) is said at once.
    clock.advance(1_000);
    wait(3_600_000);
    expect(io.stderrText()).toBe('Waiting 40s…\nWaiting 45s…\nWaiting 3600s…\n');
    // A retry's wait is always said.
    say('Retrying in 2s…', 'RETRY_WAIT', 2_000);
    expect(io.stderrText()).toMatch(/Retrying in 2s…\n$/);
  });

  it('announces each wait of a second or more on a stderr that is not a terminal, once, as a plain line', async () => {
    server = await startLoopbackServer((req, res) => sendJson(res, 201, { order_id: `ord_${req.n}` }));
    const io = testIO({ tty: false });
    const d = deps(io);
    const c = createClientForProfile(profile(), d);
    clients.push(c);
    for (let i = 0; i < 6; i++) await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    // 2/min: two at once, then two when the minute (and a margin of 2 s) has passed.
    expect(d.clock.sleeps).toEqual([62_000, 62_000]);
    expect(io.stderrText()).toBe('Waiting 1m2s to stay under the orders rate limit (2/min for this API key)…\n'.repeat(2));
    // The state file is where the CLI keeps it.
    expect(readdirSync(d.pacingDir)).toEqual([paceFileName(server.baseUrl, KEY)]);
  });

  it("a one-shot request fails at once, nothing sent, rather than wait out an hour's limit; its slot goes back; a long job waits", async () => {
    server = await startLoopbackServer((req, res) => sendJson(res, 200, { data: [], n: req.n }));
    const io = testIO({ tty: false });
    const d = deps(io);
    const c = createClientForProfile(profile({ limits: { orders_per_minute: 100, general_per_hour: 2 } }), d);
    clients.push(c);
    for (let i = 0; i < 2; i++) await c.request({ method: 'GET', path: '/wallets', raw: true });
    const e = (await c.request({ method: 'GET', path: '/wallets', raw: true }).catch((x: unknown) => x)) as CliError;
    expect(e).toBeInstanceOf(CliError);
    expect(e.kind).toBe('rate_limited');
    expect(e.message).toMatch(
      /^GET \/wallets was not sent: the general rate limit \(2\/hour for this API key\) is used up, and the next request fits in 1h2m \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/,
    );
    expect(e.jsonFields).toEqual({ retry_after_seconds: 3720 });
    expect(server.requests).toHaveLength(2);
    expect(d.clock.sleeps).toEqual([]);
    // The slot was given back: once the hour has passed, the whole limit goes at once.
    d.clock.advance(3_720_000);
    for (let i = 0; i < 2; i++) await c.request({ method: 'GET', path: '/wallets', raw: true });
    expect(d.clock.sleeps).toEqual([]);
    expect(server.requests).toHaveLength(4);
    // A long job (a batch, every page of a list) waits its pace out, with a notice.
    c.waitOutPacing?.();
    await c.request({ method: 'GET', path: '/wallets', raw: true });
    expect(server.requests).toHaveLength(5);
    expect(d.clock.sleeps).toEqual([3_720_000]);
    expect(io.stderrText()).toBe('Waiting 1h2m to stay under the general rate limit (2/hour for this API key)…\n');
  });

  it('announces a retry after a 429 when not on a terminal too', async () => {
    server = await startLoopbackServer((req, res) =>
      req.n === 1
        ? sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', { 'retry-after': '3' })
        : sendJson(res, 200, { data: [] }),
    );
    const io = testIO({ tty: false });
    const c = createClientForProfile(profile({ limits: LIMITS(100) }), deps(io));
    clients.push(c);
    await c.request({ method: 'GET', path: '/wallets', raw: true });
    expect(io.stderrText().split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^GET \/wallets: HTTP 429 rate limited, Retry-After 3 s; retrying in 3s/),
    ]);
  });

  it('with --json the announcement is one JSON line on stderr', async () => {
    server = await startLoopbackServer((req, res) => sendJson(res, 201, { order_id: `ord_${req.n}` }));
    const io = testIO({ tty: false });
    const c = createClientForProfile(profile({ limits: LIMITS(1) }), deps(io, { json: true }));
    clients.push(c);
    for (let i = 0; i < 2; i++) await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    const lines = io.stderrText().split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { notice: { code: 'RATE_LIMIT_WAIT', message: 'Waiting 1m2s to stay under the orders rate limit (1/min for this API key)…' } },
    ]);
  });

  it('says nothing for waits under a second, and with --debug says it in the debug line instead', async () => {
    server = await startLoopbackServer((req, res) => sendJson(res, 201, { order_id: `ord_${req.n}` }));
    const quiet = testIO();
    const q = deps(quiet);
    const c = createClientForProfile(profile(), q);
    clients.push(c);
    for (let i = 0; i < 2; i++) await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    q.clock.advance(61_600);
    await c.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    expect(q.clock.sleeps).toEqual([400]);
    expect(quiet.stderrText()).toBe('');
    const loud = testIO();
    const d = createClientForProfile(profile(), deps(loud, { debug: true }));
    clients.push(d);
    for (let i = 0; i < 3; i++) await d.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    expect(loud.stderrText()).toMatch(
      /\[debug\] pacing POST \/orders: waiting 1m2s to stay under the orders rate limit \(2\/min, shared by every process of this API key\)/,
    );
    expect(loud.stderrText()).not.toMatch(/^Waiting/m);
  });
});

/**
 * Real processes: several `node` processes reserve a slot at the same instant (a fixed
 * clock) through the built Pacer; the lock makes each see the others' reservations.
 */
const DIST = process.env.VOUCHERS_TEST_DIST ?? fileURLToPath(new URL('../../../dist', import.meta.url));
describe.skipIf(!existsSync(join(DIST, 'core', 'http', 'pace-file.js')))('processes at once', () => {
  it('six processes reserving 20 slots each at once get 120 different slots: no update is lost', async () => {
    // Each waits for the lock as long as it takes: on a loaded machine a holder can keep it
    // past the default second, and the fallback that follows is tested above (lockWaitMs 20).
    const dir = tempDir();
    const script = `
      const { Pacer } = await import(${JSON.stringify(join(DIST, 'core', 'http', 'pacing.js'))});
      const { paceFile } = await import(${JSON.stringify(join(DIST, 'core', 'http', 'pace-file.js'))});
      const clock = { now: () => 1_800_000_000_000, sleep: async () => {} };
      const pacer = new Pacer(clock, { orders_per_minute: 4, general_per_hour: 100000 }, { store: paceFile(${JSON.stringify(dir)}, 'http://x', 'k', { lockWaitMs: 60_000 }), onFallback: (m) => console.error(m) });
      const waits = [];
      for (let i = 0; i < 20; i++) waits.push(pacer.reserve('orders'));
      console.log(JSON.stringify(waits));`;
    const run = () =>
      new Promise<{ out: string; err: string }>((done, fail) => {
        const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        p.stderr.on('data', (c: Buffer) => {
          err += c.toString();
        });
        p.once('error', fail);
        p.once('close', () => done({ out, err }));
      });
    const results = await Promise.all(Array.from({ length: 6 }, run));
    expect(results.map((r) => r.err).join('')).toBe('');
    const all = results.flatMap((r) => JSON.parse(r.out) as number[]).sort((x, y) => x - y);
    // What one process alone would get for 120 reservations: 4 at once, 4 more every 62 s.
    expect(all).toEqual(Array.from({ length: 120 }, (_, i) => Math.floor(i / 4) * 62_000));
    expect(readdirSync(dir)).toEqual([paceFileName('http://x', 'k')]); // no lock or temporary file left
  });
});
