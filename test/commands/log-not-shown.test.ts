/**
 * An order or a payout answered 2xx whose answer the command never printed (killed, or its
 * output closed, in between): the server did it, the user never saw it. `log --unanswered`
 * lists it with its key and the command that shows it without doing it again; a command
 * that printed its answer is never listed, nor is a line logged before the CLI said so.
 * The kill is simulated at the exact point: stdout holds what the command printed and
 * does not hand it on (as a pipe nobody reads), while another run reads the log.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adviceFor, unansweredNotes } from '../../src/commands/log/unanswered.js';
import type { RequestLogEntry } from '../../src/core/journal/types.js';
import { run } from '../../src/main.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { runCli } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { expectNoSecrets, fastSandbox, orderCount, profileDir, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;

beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

interface Listed {
  method: string;
  path: string;
  status: number | null;
  idempotency_key: string;
  answer_not_shown?: true;
  shows_answer?: true;
  retry?: string | null;
  look_first?: string;
}

/** A stdout that takes what is written and hands none of it on until released. */
function heldStdout(): { stream: Writable; text: () => string; release: () => void } {
  let text = '';
  let holding = true;
  const waiting: (() => void)[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      if (holding) waiting.push(() => done());
      else done();
    },
  });
  return {
    stream,
    text: () => text,
    release: () => {
      holding = false;
      for (const done of waiting.splice(0)) done();
    },
  };
}

/** Start a command whose stdout is held; it ends once released. */
function startHeld(argv: string[], dir: string): { ended: Promise<number>; held: ReturnType<typeof heldStdout> } {
  const held = heldStdout();
  const io = { ...testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } }), stdout: held.stream };
  return { ended: run(argv, io, { clock: quickClock() }), held };
}

const logFile = (dir: string) => join(dir, 'requests.log');

/** Once the request log holds a 201 answer (the command then prints it). */
const answered = (dir: string) => () => existsSync(logFile(dir)) && /"status":201/.test(readFileSync(logFile(dir), 'utf8'));

async function unseen(dir: string): Promise<Listed[]> {
  const r = await runCli(['log', '--unanswered', '--json'], { configDir: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

describe('log --unanswered: answered, never shown', () => {
  it('orders create --json answered 201 and not yet printed: listed with its key and the command that shows it; once printed, not', async () => {
    const dir = await profileDir(sb, 'default');
    const before = orderCount(sb);
    const { ended, held } = startHeld(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], dir);
    await until(answered(dir), 'the 201 answer in the request log');
    const [listed, ...more] = await unseen(dir);
    expect(more).toEqual([]);
    expect(orderCount(sb)).toBe(before + 1);
    expect(listed).toMatchObject({ method: 'POST', path: '/orders', status: 201, answer_not_shown: true });
    const key = listed!.idempotency_key;
    expect(listed!.retry).toBe(`vouchers --profile default orders create … --idempotency-key ${key}`);
    // Its answer named the order: that order, not a day's list to search.
    const id = (listed as Listed & { order_id?: string }).order_id;
    expect(id).toMatch(/^ord_/);
    expect(listed!.look_first).toBe(`vouchers --profile default orders get ${id}`);
    expect(listed!.shows_answer).toBeUndefined();

    // The table says so, and on stderr: done, the key, not to run it again without it.
    const table = await runCli(['log', '--unanswered'], { configDir: dir });
    expect(table.stdout).toContain('answer not shown');
    expect(table.stderr).toContain(
      `answered 201, so it was done, but the command ended before it showed the answer (idempotency key ${key})`,
    );
    expect(table.stderr).toContain('do not run it again without this key');
    expect(table.stderr).toContain(`see it: vouchers --profile default orders create … --idempotency-key ${key}`);
    expect(table.stderr).toContain(`  or look for it: vouchers --profile default orders get ${id}\n`);
    expect(table.stderr).not.toContain('orders list');
    expectNoSecrets(sb, table);
    // Not a failure: the order was placed.
    expect(JSON.parse((await runCli(['log', '--failed', '--json'], { configDir: dir })).stdout)).toEqual([]);

    held.release();
    expect(await ended).toBe(0);
    expect((JSON.parse(held.text()) as { idempotency_key: string }).idempotency_key).toBe(key);
    expect(await unseen(dir)).toEqual([]);
  });

  it('the command that shows it replays the order (nothing ordered again) and settles it', async () => {
    const dir = await profileDir(sb, 'default');
    const args = ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reference', 'never-shown-1', '--json'];
    const { held } = startHeld(args, dir);
    await until(answered(dir), 'the 201 answer in the request log');
    const [listed] = await unseen(dir);
    const before = orderCount(sb);
    // As if killed here: the held run is never released. The retry the log names:
    const shown = await runCli([...args, '--idempotency-key', listed!.idempotency_key], {
      configDir: dir,
      overrides: { clock: quickClock() },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(orderCount(sb)).toBe(before);
    expect(await unseen(dir)).toEqual([]);
    held.stream.destroy();
  });

  it('payouts create and vouchers api POST /payouts: listed until printed', async () => {
    for (const argv of [
      ['payouts', 'create', '--amount', '1', '--currency', 'USD', '--reference', 'held-1', '--json'],
      ['api', 'POST', '/payouts', '-d', '{"amount":1,"currency":"USD","reference":"held-2"}'],
    ]) {
      const dir = await profileDir(sb, 'default');
      const { ended, held } = startHeld(argv, dir);
      await until(answered(dir), `the 201 answer of ${argv.join(' ')} in the request log`);
      const [listed, ...more] = await unseen(dir);
      expect(more).toEqual([]);
      expect(listed).toMatchObject({ method: 'POST', path: '/payouts', status: 201, answer_not_shown: true });
      held.release();
      expect(await ended).toBe(0);
      expect(await unseen(dir)).toEqual([]);
    }
  });

  it('a command that printed its answer is never listed: table, --json, --jmespath, --wait (done, or still pending: exit 8), a payout, vouchers api', async () => {
    const dir = await profileDir(sb, 'default');
    const order = ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'];
    for (const argv of [
      order,
      [...order, '--json'],
      [...order, '--jmespath', 'order_id'],
      ['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--wait', '--json'],
      ['payouts', 'create', '--amount', '1', '--currency', 'USD', '--reference', 'shown-1'],
      ['api', 'POST', '/orders', '-d', '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}'],
    ]) {
      const r = await runCli(argv, { configDir: dir, overrides: { clock: quickClock() } });
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    // Still pending when --wait gave up (exit 8): the order is printed before the error.
    const pending = await runCli(
      ['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--wait', '--wait-timeout', '1s', '--json'],
      {
        configDir: dir,
        overrides: { clock: quickClock() },
      },
    );
    expect(pending.code, pending.stderr).toBe(8);
    expect(JSON.parse(pending.stdout)).toMatchObject({ status: 'PENDING' });
    expect(await unseen(dir)).toEqual([]);
    const all = JSON.parse((await runCli(['log', '--json'], { configDir: dir })).stdout) as Listed[];
    expect(all.filter((e) => e.method === 'POST')).toHaveLength(7);
    expect(all.some((e) => e.answer_not_shown || e.shows_answer)).toBe(false);
  });

  it('orders create --wait stopped by Ctrl-C while following the order it named: not listed; the error names it and how to follow it', async () => {
    const dir = await profileDir(sb, 'default');
    for (const json of [[], ['--json']]) {
      const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
      const argv = ['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--wait', ...json];
      const ended = run(argv, io, { clock: quickClock() });
      // Following it: the order's GET is in the log after its answer.
      await until(
        () => existsSync(logFile(dir)) && /"method":"GET","path":"\/orders\/ord_/.test(readFileSync(logFile(dir), 'utf8')),
        'a GET of the order',
      );
      io.interrupt();
      expect(await ended).toBe(130);
      const id = /"path":"\/orders\/(ord_\w+)"/.exec(readFileSync(logFile(dir), 'utf8'))![1]!;
      expect(io.stderrText()).toContain(`order ${id} was placed`);
      expect(io.stderrText()).toContain(`vouchers orders wait ${id}`);
      expect(await unseen(dir)).toEqual([]);
      writeFileSync(logFile(dir), '');
    }
  });

  it('an output closed before the answer was written (| head -0): listed', async () => {
    const dir = await profileDir(sb, 'default');
    const closed = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const io = { ...testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } }), stdout: closed };
    await run(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], io, { clock: quickClock() });
    const listed = await unseen(dir);
    expect(listed.map((e) => [e.path, e.status, e.answer_not_shown])).toEqual([['/orders', 201, true]]);
  });

  it('a log written before shown lines were (no shows_answer on its answers) lists none of its orders', async () => {
    const dir = await profileDir(sb, 'default');
    const line = (extra: Record<string, unknown>) =>
      JSON.stringify({
        time: new Date().toISOString(),
        profile: 'default',
        method: 'POST',
        path: '/orders',
        status: 201,
        duration_ms: 40,
        attempt: 1,
        trace_id: '0123456789abcdef0123456789abcdef',
        idempotency_key: 'old-key-1',
        error_code: null,
        ...extra,
      });
    writeFileSync(logFile(dir), `${line({ status: null, duration_ms: 0, sending: true })}\n${line({})}\n`);
    expect(await unseen(dir)).toEqual([]);
  });
});

describe('log --unanswered: the order an answer named', () => {
  const shown = (extra: Partial<RequestLogEntry>): RequestLogEntry => ({
    time: '2026-11-25T11:00:00.000Z',
    profile: 'pf',
    method: 'POST',
    path: '/orders',
    status: 201,
    duration_ms: 40,
    attempt: 1,
    trace_id: '0123456789abcdef0123456789abcdef',
    idempotency_key: 'key-1',
    error_code: null,
    answer_not_shown: true,
    ...extra,
  });
  const now = Date.parse('2026-11-25T12:00:00Z');

  it('is looked up by its id with the server and key it went to, past the 24 hours of its key too', () => {
    expect(adviceFor(shown({ order_id: 'ord_7', set_by: { base_url: 'flag' } }), now)?.look_first).toBe(
      'vouchers --profile pf --base-url … orders get ord_7',
    );
    const env = shown({ order_id: 'ord_7', set_by: { base_url: 'env', api_key: 'env' } });
    expect(adviceFor(env, now + 48 * 3_600_000)).toEqual({
      retry: null,
      key_expired: true,
      look_first: 'VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… vouchers orders get ord_7',
    });
    // Without an id, the day's list.
    expect(adviceFor(shown({}), now)?.look_first).toBe('vouchers --profile pf orders list --from 2026-11-25');
    const notes = unansweredNotes([shown({ order_id: 'ord_7' })], now);
    expect(notes).toContain('  or look for it: vouchers --profile pf orders get ord_7\n');
    expect(notes).not.toContain('--reference');
  });
});
