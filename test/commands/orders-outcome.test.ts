/**
 * How an order ended, as exit codes and messages, against the sandbox over loopback:
 * `orders wait` and `orders create --wait` agree (0 DELIVERED, 5 ORDER_NOT_FULFILLED or
 * ORDER_PARTIALLY_DELIVERED with the last trace ID); `orders codes` of an order without
 * codes writes no file (8 pending, 5 ended); `orders create --json` keeps stderr one JSON
 * document with the idempotency key in it; Ctrl-C says what was left behind.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Order } from '../../src/contract/orders.js';
import { run } from '../../src/main.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { until } from '../helpers/until.js';
import { forward, forwardTo, resetSocket, sendError, startLoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { envOf, expectNoSecrets, FAST_LIMITS, fastSandbox, noStack, orderCount, profileDir, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;
let env: Record<string, string>;
let adminDir: string;

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
  adminDir = await profileDir(sb, 'admin', { admin_url: sb.adminUrl, admin_token: sb.adminToken });
});
afterAll(async () => {
  await sb.close();
});

const cli = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(argv, { env, overrides: { clock: quickClock() }, ...opts });

const TRACE = /^[0-9a-f]{32}$/;

interface Envelope {
  error: { name: string; code: string; message: string; hint?: string; status?: number };
  trace_id: string | null;
  [field: string]: unknown;
}

/** With --json, stderr is exactly one JSON document: the error envelope. */
function onlyEnvelope(r: CliResult): Envelope {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!) as Envelope;
}

function lastEnvelope(r: CliResult): Envelope {
  return JSON.parse(r.stderr.trim().split('\n').pop()!) as Envelope;
}

async function placed(product: string, quantity = 1): Promise<string> {
  const r = await cli(['orders', 'create', '--product', product, '--denomination', '10', '--quantity', String(quantity), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Order).order_id;
}

describe('orders wait stopped with Ctrl-C', () => {
  it('says the waiting stopped, not the order, with the last status seen and how to follow it again (exit 130)', async () => {
    // Held at the sandbox's admin gate: pending until someone decides.
    const id = await placed('sbx-gated');
    const io = testIO({ env });
    const running = run(['orders', 'wait', id], io);
    await until(() => io.stderrText().includes(`${id}  PENDING`), 'the first status', 10_000);
    io.interrupt();
    expect(await running).toBe(130);
    const text = io.stderrText();
    expect(text).toContain(`stopped waiting for ${id} (last seen PENDING); the order itself is not changed by that`);
    expect(text).toContain(`follow it again: vouchers orders wait ${id}; or see it once: vouchers orders get ${id}`);
    // The trace ID of the request that saw it last (or of the one in flight), as the timeout's error gives.
    const seen = [...text.matchAll(/ PENDING {2}trace ([0-9a-f]{32})/g)].map((m) => m[1]);
    expect(seen.length).toBeGreaterThan(0);
    expect(text).toMatch(/\n {2}trace ID {2}[0-9a-f]{32}\n/);
    expect(text).not.toMatch(/\n\s+at /);
  });
});

describe('orders wait and orders create --wait exit alike by how the order ended', () => {
  it('orders wait: REFUNDED prints the order, then exits 5 ORDER_NOT_FULFILLED with the trace ID', async () => {
    const id = await placed('sbx-vendor-fail');
    const r = await cli(['orders', 'wait', id]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain(`order_id\t${id}`);
    expect(r.stdout).toContain('status\tREFUNDED');
    expect(r.stderr).toContain(`order ${id} ended REFUNDED: no voucher was issued, and the 10.00 USD debit is refunded to the USD wallet`);
    expect(r.stderr).toContain('ORDER_NOT_FULFILLED');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    noStack(r);

    const j = await cli(['orders', 'wait', id, '--json']);
    expect(j.code).toBe(5);
    expect(Order.parse(JSON.parse(j.stdout)).status).toBe('REFUNDED');
    const envelope = lastEnvelope(j);
    expect(envelope.error).toMatchObject({ name: 'OrderNotFulfilled', code: 'ORDER_NOT_FULFILLED' });
    expect(envelope.trace_id).toMatch(TRACE);
  });

  it('orders wait: PARTIALLY_DELIVERED exits 5 ORDER_PARTIALLY_DELIVERED, saying how many of how many', async () => {
    const id = await placed('sbx-partial', 2);
    const r = await cli(['orders', 'wait', id]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('status\tPARTIALLY_DELIVERED');
    expect(r.stderr).toContain(
      `order ${id} ended PARTIALLY_DELIVERED: 1 of 2 vouchers issued; the one that failed is refunded to the USD wallet`,
    );
    expect(r.stderr).toContain('ORDER_PARTIALLY_DELIVERED');
    expect(r.stderr).toContain(`vouchers orders codes ${id} --codes-out`);
    const j = await cli(['orders', 'wait', id, '--json']);
    expect(j.code).toBe(5);
    const envelope = lastEnvelope(j);
    expect(envelope.error.code).toBe('ORDER_PARTIALLY_DELIVERED');
    expect(envelope.trace_id).toMatch(TRACE);
    expectNoSecrets(sb, r);
  });

  it('orders wait: DELIVERED exits 0; --until a status reached exits 0 even if it is REFUNDED', async () => {
    expect((await cli(['orders', 'wait', await placed('sbx-async')])).code).toBe(0);
    const refunded = await cli(['orders', 'wait', await placed('sbx-vendor-fail'), '--until', 'REFUNDED']);
    expect(refunded.code, refunded.stderr).toBe(0);
  });

  it('on a terminal, an order that ended without its vouchers ends the spinner with ✖, not a green ✔; --until it reached, ✔', async () => {
    const id = await placed('sbx-vendor-fail');
    const r = await cli(['orders', 'wait', id], { tty: true });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`✖ ${id} REFUNDED`));
    expect(r.stderr).not.toContain('✔');
    const partial = await cli(['orders', 'create', '--product', 'sbx-partial', '--denomination', '10', '--quantity', '2', '--wait'], {
      tty: true,
    });
    expect(partial.code, partial.stderr).toBe(5);
    expect(partial.stderr).toMatch(/✖ ord_\S+ PARTIALLY_DELIVERED/);
    expect(partial.stderr).not.toContain('✔');
    const asked = await cli(['orders', 'wait', id, '--until', 'REFUNDED'], { tty: true });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(new RegExp(`✔ ${id} REFUNDED`));
  });

  it('create --wait: ORDER_NOT_FULFILLED carries the trace ID of the last request', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-vendor-fail', '--denomination', '10', '--wait', '--json']);
    expect(r.code).toBe(5);
    // With --json stderr is the JSON error alone (no per-status lines).
    const envelope = onlyEnvelope(r);
    expect(envelope.error.code).toBe('ORDER_NOT_FULFILLED');
    expect(envelope.trace_id).toMatch(TRACE);
    // The last poll, the one that saw REFUNDED, is the trace ID given (its line is printed without --json).
    const human = await cli(['orders', 'create', '--product', 'sbx-vendor-fail', '--denomination', '10', '--wait']);
    expect(human.code).toBe(5);
    const last = new RegExp('REFUNDED {2}trace ([0-9a-f]{32})').exec(human.stderr)![1]!;
    expect(human.stderr).toMatch(new RegExp(`trace ID\\s+${last}`));
  });

  it('create --wait: PARTIALLY_DELIVERED prints the order, saves the issued codes, then exits 5', async () => {
    const file = join(tempConfigDir(), 'partial.csv');
    const r = await cli([
      'orders',
      'create',
      '--product',
      'sbx-partial',
      '--denomination',
      '10',
      '--quantity',
      '4',
      '--wait',
      '--codes-out',
      file,
    ]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('status\tPARTIALLY_DELIVERED');
    expect(r.stderr).toMatch(/ended PARTIALLY_DELIVERED: 2 of 4 vouchers issued; the 2 that failed are refunded to the USD wallet/);
    expect(r.stderr).toContain('ORDER_PARTIALLY_DELIVERED');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(r.stderr).toContain('Wrote 2 codes');
    expect(existsSync(file)).toBe(true);
    expectNoSecrets(sb, r);
    noStack(r);
  });

  it('create --wait: DELIVERED exits 0', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--wait']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('orders codes of an order without codes', () => {
  it('PENDING: exit 8, no file, how to wait for it; once delivered the same command writes the file', async () => {
    const id = await placed('sbx-gated');
    const file = join(tempConfigDir(), 'f.csv');
    const r = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(8);
    expect(existsSync(file)).toBe(false);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/Wrote/);
    expect(r.stderr).toContain(`order ${id} is PENDING and has no codes yet`);
    // Its timeline says it is held at the sandbox's admin gate: waiting can only time out, approving releases it.
    expect(r.stderr).toContain(`held at the sandbox's admin gate until an operator approves it: vouchers sandbox admin approve ${id}`);
    expect(r.stderr).not.toContain('orders wait');
    expect(r.stderr).toContain(`vouchers orders codes ${id} --codes-out ${file}`);
    expect(r.stderr).toContain('STILL_PENDING');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    noStack(r);

    const bare = await cli(['orders', 'codes', id]);
    expect(bare.code).toBe(8);
    expect(bare.stderr).toContain(`order ${id} is PENDING and has no codes yet`);
    const j = await cli(['orders', 'codes', id, '--json']);
    expect(j.code).toBe(8);
    expect(onlyEnvelope(j)).toMatchObject({ error: { code: 'STILL_PENDING' } });

    const done = await runCli(['sandbox', 'admin', 'complete', id], { configDir: adminDir });
    expect(done.code, done.stderr).toBe(0);
    const after = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain(`Wrote 1 code to`);
    expect(existsSync(file)).toBe(true);
  });

  it('REFUNDED: exit 5 ORDER_NOT_FULFILLED, no file', async () => {
    const id = await placed('sbx-vendor-fail');
    expect((await cli(['orders', 'wait', id, '--until', 'REFUNDED'])).code).toBe(0);
    const file = join(tempConfigDir(), 'none.csv');
    const r = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(5);
    expect(existsSync(file)).toBe(false);
    expect(r.stderr).toContain(`order ${id} ended REFUNDED`);
    expect(r.stderr).toContain('ORDER_NOT_FULFILLED');
  });
});

describe('orders create --json: stderr is the JSON error alone, with the idempotency key', () => {
  it('an API rejection: one JSON line with the envelope, its trace ID and idempotency_key', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '10', '--json']);
    expect(r.code).toBe(5);
    const envelope = onlyEnvelope(r);
    expect(envelope.error).toMatchObject({ code: 'INSUFFICIENT_INVENTORY', status: 409 });
    expect(envelope.trace_id).toMatch(TRACE);
    expect(envelope.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);

    const given = await cli([
      'orders',
      'create',
      '--product',
      'sbx-out-of-stock',
      '--denomination',
      '10',
      '--idempotency-key',
      'po-77-a',
      '--json',
    ]);
    expect(onlyEnvelope(given).idempotency_key).toBe('po-77-a');
  });

  it('without --json the key is still shown on stderr before sending', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '10', '--idempotency-key', 'po-77-b']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'Idempotency key: po-77-b\n  if this command is cut off or fails, rerun it with --idempotency-key po-77-b: the order is not placed twice\n',
    );
  });

  it('a success keeps the key in the printed order; stderr has no key line', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { idempotency_key: string };
    expect(body.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).not.toContain('Idempotency key');
  });

  it('ORDER_NOT_FULFILLED with --json carries idempotency_key and trace_id', async () => {
    const r = await cli([
      'orders',
      'create',
      '--product',
      'sbx-vendor-fail',
      '--denomination',
      '10',
      '--wait',
      '--json',
      '--idempotency-key',
      'po-77-c',
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).not.toContain('Idempotency key');
    const envelope = lastEnvelope(r);
    expect(envelope).toMatchObject({ error: { code: 'ORDER_NOT_FULFILLED' }, idempotency_key: 'po-77-c' });
    expect(envelope.trace_id).toMatch(TRACE);
  });
});

describe('Ctrl-C during orders create', () => {
  /** Run `orders create …` in-process and interrupt it once `when(stderr)` holds. */
  async function interrupted(
    argv: string[],
    runEnv: Record<string, string>,
    when: (stderr: string) => boolean,
    command = ['orders', 'create'],
  ): Promise<CliResult> {
    const io = testIO({ env: { ...runEnv, VOUCHERS_CONFIG_DIR: tempConfigDir() } });
    const running = run([...command, ...argv], io, { clock: quickClock() });
    const poll = setInterval(() => {
      if (when(io.stderrText())) {
        clearInterval(poll);
        io.interrupt();
      }
    }, 2);
    const code = await running;
    clearInterval(poll);
    await new Promise((r) => setImmediate(r));
    return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
  }

  it('after the order was accepted: says it was placed, its last status, how to follow it, and the trace ID', async () => {
    const r = await interrupted(['--product', 'sbx-gated', '--denomination', '10', '--wait', '--codes-out', 'gated.csv'], env, (e) =>
      /accepted: PENDING/.test(e),
    );
    expect(r.code, r.stderr).toBe(130);
    const id = /Order (ord_[0-9A-Z]{26}) accepted/.exec(r.stderr)![1]!;
    expect(sb.state.orders[id]!.status).toBe('PENDING');
    expect(r.stderr).toContain(`order ${id} was placed (last seen PENDING)`);
    expect(r.stderr).toContain(`vouchers orders wait ${id}`);
    expect(r.stderr).toContain(`vouchers orders codes ${id} --codes-out gated.csv`);
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(r.stderr).toContain('INTERRUPTED');
    noStack(r);

    // With --json stderr has no "accepted" line to wait for: interrupt once the sandbox
    // answered a poll of the order (the CLI polls only after it got the order's answer).
    const logged: string[] = [];
    const polled = await startSandbox({
      port: 0,
      host: '127.0.0.1',
      seed: 1,
      timeScale: 0.01,
      limits: FAST_LIMITS,
      log: (line) => logged.push(line),
    });
    try {
      const j = await interrupted(
        ['--product', 'sbx-gated', '--denomination', '10', '--wait', '--json', '--idempotency-key', 'po-77-d'],
        envOf(polled),
        () => logged.some((line) => /^GET \S*\/orders\/ord_/.test(line)),
      );
      expect(j.code, j.stderr).toBe(130);
      const envelope = onlyEnvelope(j);
      expect(envelope.error.code).toBe('INTERRUPTED');
      expect(envelope.error.message).toMatch(/order ord_[0-9A-Z]{26} was placed \(last seen PENDING\)/);
      // order_status: the order's status, not to be mistaken for an HTTP status.
      expect(envelope).toMatchObject({ idempotency_key: 'po-77-d', order_status: 'PENDING' });
      expect(envelope).not.toHaveProperty('status');
      expect(envelope.order_id).toMatch(/^ord_[0-9A-Z]{26}$/);
      expect(envelope.trace_id).toMatch(TRACE);
    } finally {
      await polled.close();
    }
  });

  describe('before the answer came', () => {
    let hold: Server;
    let holdUrl: string;
    let received = 0;
    beforeAll(async () => {
      // Takes the request and never answers: the order's fate is unknown to the CLI.
      hold = createServer(() => {
        received += 1;
      });
      await new Promise<void>((r) => hold.listen(0, '127.0.0.1', () => r()));
      holdUrl = `http://127.0.0.1:${(hold.address() as AddressInfo).port}/api/v1`;
    });
    afterAll(async () => {
      hold.closeAllConnections();
      await new Promise((r) => hold.close(r));
    });

    it('says the order may or may not have been placed, and the key that retries it safely', async () => {
      const before = orderCount(sb);
      const sent = received;
      const r = await interrupted(
        ['--product', 'sbx-instant', '--denomination', '10', '--wait'],
        { ...env, VOUCHERS_BASE_URL: holdUrl },
        () => received > sent,
      );
      expect(r.code, r.stderr).toBe(130);
      const key = /Idempotency key: (\S+) \(generated\)/.exec(r.stderr)![1]!;
      expect(r.stderr).toMatch(/may or may not have been placed/);
      // The whole command that retries it, last in the hint, to paste as it is.
      expect(r.stderr).toContain(
        `hint      if the order was placed, a retry with its key gets the server's answer again and never orders twice; retry safely: vouchers orders create --product sbx-instant --denomination 10 --wait --idempotency-key ${key}\n`,
      );
      expect(r.stderr).not.toMatch(/was placed \(last seen/);
      noStack(r);
      expect(orderCount(sb)).toBe(before);

      const sentBefore = received;
      const j = await interrupted(
        ['--product', 'sbx-instant', '--denomination', '10', '--json', '--idempotency-key', 'po-77-e'],
        { ...env, VOUCHERS_BASE_URL: holdUrl },
        () => received > sentBefore,
      );
      expect(j.code, j.stderr).toBe(130);
      expect(onlyEnvelope(j)).toMatchObject({ error: { code: 'INTERRUPTED' }, idempotency_key: 'po-77-e' });
    });

    it('stopped while waiting for its pace (nothing sent): says nothing was placed', async () => {
      const configDir = tempConfigDir();
      const paced = { ...env, VOUCHERS_CONFIG_DIR: configDir, VOUCHERS_LIMITS_ORDERS_PER_MINUTE: '1' };
      const first = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], { env: paced });
      expect(first.code, first.stderr).toBe(0);
      const before = orderCount(sb);
      // The real clock: the second order waits for the next minute's slot, and Ctrl-C comes during the wait.
      const io = testIO({ env: paced });
      const running = run(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], io);
      await until(() => io.stderrText().includes('Waiting'), 'the pacing wait', 10_000);
      io.interrupt();
      expect(await running).toBe(130);
      expect(io.stderrText()).toContain('before the order was sent: nothing was placed');
      expect(io.stderrText()).not.toContain('may or may not');
      expect(orderCount(sb)).toBe(before);
    });

    it('payouts create, api POST and orders cancel say the same: maybe done, the trace ID, how to find out or retry safely', async () => {
      const holdEnv = { ...env, VOUCHERS_BASE_URL: holdUrl };
      const stop = async (command: string[], argv: string[]) => {
        const sent = received;
        const r = await interrupted(argv, holdEnv, () => received > sent, command);
        expect(r.code, r.stderr).toBe(130);
        noStack(r);
        expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
        return r;
      };
      const payout = await stop(['payouts', 'create'], ['--amount', '1', '--currency', 'USD', '--idempotency-key', 'pay-held-1']);
      expect(payout.stderr).toContain('while POST /payouts was in flight: the server may or may not have acted on it');
      expect(payout.stderr).toContain(
        'To retry safely (the payout is made at most once): vouchers payouts create --amount 1 --currency USD --idempotency-key pay-held-1',
      );
      const api = await stop(['api'], ['POST', '/orders', '-d', '{"items":[]}', '--idempotency-key', 'api-held-1']);
      expect(api.stderr).toContain('while POST /orders was in flight: the server may or may not have acted on it');
      expect(api.stderr).toContain('--idempotency-key api-held-1');
      const id = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE';
      const cancel = await stop(['orders', 'cancel'], [id, '--yes']);
      expect(cancel.stderr).toContain(`while POST /orders/${id}/cancel was in flight`);
      expect(cancel.stderr).toContain(`see whether it was cancelled: vouchers orders get ${id}`);
    });
  });
});

describe('orders create --wait: following stopped by an error after the order was placed', () => {
  let server: Server;
  let url: string;
  let pending: unknown;
  beforeAll(async () => {
    // A real PENDING order as the sandbox answers it; the server below places it, then fails every GET.
    const r = await cli(['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--json']);
    expect(r.code, r.stderr).toBe(0);
    pending = JSON.parse(r.stdout);
    server = createServer((req, res) => {
      const status = req.method === 'POST' ? 202 : 503;
      res.writeHead(status, { 'content-type': 'application/json', 'x-trace-id': 'f'.repeat(32) });
      res.end(JSON.stringify(status === 202 ? pending : { error: { code: 'SERVICE_UNAVAILABLE', message: 'down for maintenance' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('says the order was placed and how to follow it, prints it, and names it in the error', async () => {
    const id = (pending as Order).order_id;
    const args = ['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--wait', '--max-retries', '0'];
    const human = await cli(args, { env: { ...env, VOUCHERS_BASE_URL: url } });
    expect(human.code, human.stderr).toBe(7);
    expect(human.stderr).toContain(
      `Order ${id} was placed (last seen PENDING); following it stopped. Follow it: vouchers orders wait ${id}`,
    );
    expect(human.stdout).toContain(id);
    noStack(human);
    const json = await cli([...args, '--json', '--idempotency-key', 'follow-stopped'], { env: { ...env, VOUCHERS_BASE_URL: url } });
    expect(json.code, json.stderr).toBe(7);
    // stdout: the order, for a script; stderr: only the error, naming the order.
    expect((JSON.parse(json.stdout) as Order).order_id).toBe(id);
    expect(onlyEnvelope(json)).toMatchObject({ idempotency_key: 'follow-stopped', order_id: id, order_status: 'PENDING' });
  });
});

describe('orders create refused on a retry, after an attempt whose answer was lost', () => {
  it('does not read as "not ordered": the hint says the order may exist, how to look for it by reference, and the key to retry with', async () => {
    // A server that checks funds before the key: the first attempt is ordered and its
    // connection dropped before the answer; the retry under the same key is refused.
    const { origin } = new URL(sb.baseUrl);
    const keys = new Set<unknown>();
    const proxy = await startLoopbackServer(async (req, res, raw) => {
      if (req.method !== 'POST') return forwardTo(origin, req, res);
      const key = req.headers['idempotency-key'];
      if (!keys.has(key)) {
        keys.add(key);
        await (await forward(origin, req)).text();
        return resetSocket(raw);
      }
      return sendError(res, 402, 'InsufficientFunds', 'INSUFFICIENT_FUNDS', 'balance too low');
    });
    try {
      const before = orderCount(sb);
      const viaProxy = { ...env, VOUCHERS_BASE_URL: proxy.baseUrl };
      const argv = ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reference', 'lost-then-refused'];
      const r = await cli(argv, { env: viaProxy });
      expect(r.code, r.stderr).toBe(5);
      expect(orderCount(sb)).toBe(before + 1);
      expect(r.stderr).toContain(
        'an earlier attempt of this order got no answer and may have placed it: before ordering again, look for it with vouchers orders list --reference lost-then-refused; ' +
          "if the order was placed, a retry with its key gets the server's answer again and never orders twice; " +
          'retry safely: vouchers orders create --product sbx-instant --denomination 10 --reference lost-then-refused --idempotency-key ',
      );
      // With --json, the hint and the key to retry with are in the error.
      const json = lastEnvelope(await cli([...argv, '--json'], { env: viaProxy }));
      expect(orderCount(sb)).toBe(before + 2);
      expect(json).toMatchObject({ error: { code: 'INSUFFICIENT_FUNDS' }, idempotency_key: [...keys][1] });
      expect(json.error.hint).toMatch(/^an earlier attempt of this order got no answer and may have placed it/);
    } finally {
      await proxy.close();
    }
  });
});
