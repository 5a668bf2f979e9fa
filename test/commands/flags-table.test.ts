/**
 * Flag parsing and validation as tables, through the real program (commander, the flag
 * declarations, each verb's pure checks, main's exit codes) with the run seam in place of
 * the verbs: no sandbox, no request, no file written. A good line reaches the seam with what
 * it parsed to; a bad one exits 2 with a message naming the flag, and reaches nothing.
 */
import { describe, expect, it } from 'vitest';
import type { VerbCall } from '../../src/commands/types.js';
import { run } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { tempConfigDir } from '../helpers/run-cli.js';

async function parse(argv: string[]): Promise<{ code: number; calls: VerbCall[]; stderr: string }> {
  const calls: VerbCall[] = [];
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: tempConfigDir() } });
  const code = await run(argv, io, {}, (call) => {
    calls.push(call);
  });
  await new Promise((r) => setImmediate(r));
  return { code, calls, stderr: io.stderrText() };
}

/** The one call a good command line makes. */
async function call(argv: string[]): Promise<VerbCall> {
  const r = await parse(argv);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.calls).toHaveLength(1);
  return r.calls[0]!;
}

const good: { argv: string[]; command: string; args?: unknown[]; flags?: Record<string, unknown>; parsed?: Record<string, unknown> }[] = [
  {
    argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--quantity', '2', '--idempotency-key', 'po-1042-a'],
    command: 'orders create',
    flags: { product: 'sbx-instant', denomination: '25', quantity: '2', idempotencyKey: 'po-1042-a' },
    parsed: {
      single: {
        body: { items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 2 }] },
        idempotencyKey: 'po-1042-a',
        keyGiven: true,
        dryRun: false,
        wait: false,
      },
    },
  },
  {
    argv: [
      'orders',
      'create',
      '--item',
      'sbx-instant:25:2',
      '--item',
      'sbx-async:50',
      '--reference',
      'po-7',
      '--wait',
      '--wait-timeout',
      '2m',
      '--json',
    ],
    command: 'orders create',
    flags: { item: ['sbx-instant:25:2', 'sbx-async:50'], reference: 'po-7', wait: true, waitTimeout: '2m', json: true },
    parsed: {
      single: {
        body: {
          items: [
            { product_id: 'sbx-instant', denomination: 25, quantity: 2 },
            { product_id: 'sbx-async', denomination: 50, quantity: 1 },
          ],
          reference: 'po-7',
        },
        wait: true,
        waitMs: 120_000,
        keyGiven: false,
      },
    },
  },
  {
    argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--dry-run'],
    command: 'orders create',
    flags: { dryRun: true },
    parsed: { single: { dryRun: true, body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] } } },
  },
  {
    argv: ['orders', 'create', '--from', 'orders.csv', '--concurrency', '4', '--results', 'results.csv', '--yes'],
    command: 'orders create',
    flags: { from: 'orders.csv', concurrency: '4', results: 'results.csv', yes: true },
    parsed: { bulk: { from: 'orders.csv', concurrency: 4, results: 'results.csv', yes: true, dryRun: false, newBatch: false } },
  },
  {
    argv: [
      'orders',
      'list',
      '--status',
      'pending',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30',
      '--limit',
      '20',
      '--all',
      '--output',
      'csv',
    ],
    command: 'orders list',
    flags: { status: 'pending', all: true, output: 'csv' },
    parsed: { query: { status: 'PENDING', created_from: '2026-11-01', created_to: '2026-11-30', limit: 20 }, created: {} },
  },
  {
    // A time within a day: the server is asked for its UTC day, the rows kept from that instant.
    argv: ['orders', 'list', '--from', '2026-11-01T09:30:00+01:00', '--to', 'now'],
    command: 'orders list',
    flags: { from: '2026-11-01T09:30:00+01:00', to: 'now' },
    parsed: {
      query: { created_from: '2026-11-01' },
      created: { fromDay: '2026-11-01', after: Date.parse('2026-11-01T08:30:00Z'), fromText: '2026-11-01T08:30:00Z' },
    },
  },
  {
    argv: ['orders', 'wait', 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', '--until', 'DELIVERED'],
    command: 'orders wait',
    args: ['ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
    flags: { until: 'DELIVERED' },
  },
  {
    argv: ['transactions', 'list', '--type', 'refund', '--from', '2026-11-01', '--limit', '5'],
    command: 'transactions list',
    flags: { type: 'refund', from: '2026-11-01', limit: '5' },
    parsed: { query: { type: 'REFUND', from: '2026-11-01', limit: 5 }, created: {} },
  },
  {
    argv: ['api', 'GET', '/products', '-q', 'currency=USD', '-q', 'country=US', '-H', 'X-Note:1', '--paginate', '--max-pages', '3'],
    command: 'api',
    args: ['GET', '/products'],
    flags: { query: ['currency=USD', 'country=US'], header: ['X-Note:1'], paginate: true, maxPages: '3' },
  },
  {
    argv: [
      'listen',
      '--port',
      '0',
      '--secret',
      'whsec_one',
      '--secret',
      'whsec_two',
      '--forward-to',
      'http://127.0.0.1:3000/hooks',
      '--forward-retries',
      '2',
    ],
    command: 'listen',
    flags: { port: '0', host: '127.0.0.1', path: '/webhooks', secret: ['whsec_one', 'whsec_two'], forwardRetries: '2' },
    parsed: {
      port: 0,
      host: '127.0.0.1',
      path: '/webhooks',
      secrets: ['whsec_one', 'whsec_two'],
      tolerance: 300,
      register: false,
      json: false,
    },
  },
  {
    argv: ['sandbox', 'start', '--port', '0', '--seed', '7', '--time-scale', '0.1', '--limit-orders', '100/min'],
    command: 'sandbox start',
    flags: { port: '0', seed: '7', timeScale: '0.1', signingPath: 'full' },
    parsed: { port: 0, seed: 7, timeScale: 0.1, ordersPerMinute: 100, signingPath: 'full', detach: false },
  },
  {
    argv: ['sandbox', 'admin', 'keys', 'rotate', 'vk_test_1', '--no-update-profile', '--show-secret'],
    command: 'sandbox admin keys rotate',
    args: ['vk_test_1'],
    flags: { updateProfile: false, showSecret: true },
  },
];

describe('command lines, parsed without running the verb', () => {
  it.each(good)('$argv', async ({ argv, command, args = [], flags = {}, parsed }) => {
    const c = await call(argv);
    expect(c.command).toBe(command);
    expect(c.args).toEqual(args);
    expect(c.flags).toMatchObject(flags);
    if (parsed) expect(c.parsed).toMatchObject(parsed);
  });

  it('listen parses its forward URL', async () => {
    const c = await call(['listen', '--forward-to', 'http://127.0.0.1:3000/hooks']);
    expect(String((c.parsed as { forwardTo: URL }).forwardTo)).toBe('http://127.0.0.1:3000/hooks');
  });
});

const bad: { argv: string[]; message: RegExp }[] = [
  // orders create: single against bulk, flags that need another, values
  {
    argv: ['orders', 'create', '--from', 'orders.csv', '--product', 'sbx-instant'],
    message: /--product cannot be combined with a bulk order/,
  },
  {
    argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--concurrency', '4'],
    message: /--concurrency only applies to a bulk order/,
  },
  {
    argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--wait-timeout', '2m'],
    message: /--wait-timeout is how long --wait follows/,
  },
  { argv: ['orders', 'create', '--item', 'sbx-instant'], message: /--item "sbx-instant" \(item 1\)/ },
  { argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', 'ten'], message: /denomination/ },
  { argv: ['orders', 'create', '--from', 'orders.csv', '--concurrency', '0'], message: /--concurrency "0" is not a worker count/ },
  { argv: ['orders', 'create', '--resume', 'nope'], message: /--resume "nope" is not a batch id/ },
  {
    argv: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', ''],
    message: /--idempotency-key must be 1 to 255 printable ASCII/,
  },
  { argv: ['orders', 'create', '--prodcut', 'sbx-instant'], message: /unknown option '--prodcut'/ },
  // orders list filters
  { argv: ['orders', 'list', '--limit', '0'], message: /--limit "0" is not a page size/ },
  { argv: ['orders', 'list', '--from', '2026-11-30', '--to', '2026-11-01'], message: /--from 2026-11-30 is after --to 2026-11-01/ },
  {
    argv: ['orders', 'list', '--from', 'last week'],
    message:
      /--from "last week" is neither a duration nor a date\n {2}hint {6}give a duration before now \(30m, 2h, 7d, 2w\), today or yesterday/,
  },
  { argv: ['orders', 'list', '--to', '30'], message: /--to "30" is neither a duration nor a date/ },
  { argv: ['orders', 'list', '--from', '1h', '--to', '2h'], message: /--from 1h is after --to 2h/ },
  // A word not ours is the server's to judge (sent as given); what cannot name a status is refused.
  { argv: ['orders', 'list', '--status', 'LO$T'], message: /--status "LO\$T" is not an order status/ },
  {
    argv: ['orders', 'list', '--output', 'xml'],
    message: /--output "xml" is not a valid format\n {2}hint {6}valid: table, json, ndjson, csv; see vouchers orders list --help/,
  },
  // transactions list
  {
    argv: ['transactions', 'list', '--from', '2026-13-01'],
    message: /--from "2026-13-01" is not a date: a month is 01 to 12/,
  },
  { argv: ['transactions', 'list', '--to', '2 fortnights'], message: /--to "2 fortnights" is neither a duration nor a date/ },
  { argv: ['transactions', 'list', '--limit', '500'], message: /--limit "500" is not a page size/ },
  { argv: ['transactions', 'list', '--order', 'ord_'], message: /--order "ord_" is not an order id: nothing follows ord_/ },
  // api
  { argv: ['api', 'GET'], message: /missing required argument 'path'/ },
  // A missing argument of a few words: the words are named.
  {
    argv: ['api'],
    message: /missing required argument 'method'\n {2}hint {6}use one of GET, POST, PUT, PATCH, DELETE, HEAD; see vouchers api --help/,
  },
  { argv: ['sign'], message: /hint {6}use one of GET, POST, PUT, PATCH, DELETE, HEAD; see vouchers sign --help/ },
  // No shell, and no $SHELL to take it from: the shells are named.
  {
    argv: ['completion'],
    message: /no shell given, and \$SHELL is not set\n {2}hint {6}name one of bash, zsh, fish: e\.g\. vouchers completion bash/,
  },
  { argv: ['sandbox', 'trigger'], message: /hint {6}use one of order\.created, .*voucher\.issued; see vouchers sandbox trigger --help/ },
  { argv: ['api', 'GET', '/products', '--data'], message: /option '-d, --data <json>' argument missing/ },
  // listen
  { argv: ['listen', '--port', '70000'], message: /--port/ },
  { argv: ['listen', '--path', 'webhooks'], message: /--path "webhooks" must be a path starting with \// },
  { argv: ['listen', '--public-url', 'https://example.test/hooks'], message: /--public-url only makes sense with --register/ },
  // sandbox start
  { argv: ['sandbox', 'start', '--port', 'abc'], message: /--port/ },
  { argv: ['sandbox', 'start', '--fault-rate', '2'], message: /--fault-rate/ },
  { argv: ['sandbox', 'start', '--signing-path', 'sideways'], message: /--signing-path "sideways" is not a signing variant/ },
  { argv: ['sandbox', 'start', '--dialect', 'klingon'], message: /--dialect "klingon" is not a sandbox dialect/ },
];

describe('bad command lines: exit 2, the flag named, nothing run', () => {
  it.each(bad)('$argv', async ({ argv, message }) => {
    const r = await parse(argv);
    expect(r.code).toBe(2);
    expect(r.calls).toEqual([]);
    expect(r.stderr).toMatch(/^Error: /);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
