/**
 * `vouchers demo` end to end: piped and TTY-like, every step present with trace IDs, the
 * webhook leg verified, no voucher code in full, nothing written to the user's config,
 * no temporary directory left, and one run of the real binary exiting 0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
const STEPS = [
  '1. Browse the catalog',
  '2. Order from the cache (sbx-instant)',
  '3. Receive webhooks: start a listener and register it',
  '4. Order from the vendor (sbx-async) and follow it while its webhooks arrive',
  '5. Fetch its codes through the secure endpoint',
  '6. Wallets and the latest transactions',
];
/** Sandbox voucher codes look like SBX-7K2Q-…; not one may appear. */
const CODE = /SBX-[0-9A-Z]{4}/;
const TRACE = /trace ([0-9a-f]{32})/g;

const strip = (s: string) => s.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');

describe('vouchers demo', () => {
  it('walks through every step when piped, with trace IDs, verified webhooks and masked codes', async () => {
    // A temporary folder of this test's own: other test files run demos at the same time.
    const configDir = tempConfigDir();
    const ownTmp = mkdtempSync(join(tmpdir(), 'vouchers-demo-test-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    let r;
    try {
      r = await runCli(['demo', '--time-scale', '0.05'], {
        configDir,
        env: { VOUCHERS_PROFILE: 'elsewhere', VOUCHERS_BASE_URL: 'http://192.0.2.1/api/v1' },
      });
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(r.code, r.stderr).toBe(0);
    for (const step of STEPS) expect(r.stdout).toContain(step);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect([...r.stdout.matchAll(TRACE)].length).toBeGreaterThanOrEqual(9);
    for (const req of [
      'GET /categories',
      'POST /orders  201',
      'POST /webhooks  201',
      'POST /orders  202',
      '/vouchers  200',
      'GET /wallets',
      'GET /transactions',
    ]) {
      expect(r.stdout).toContain(req);
    }
    for (const event of ['order.created', 'order.processing', 'voucher.issued', 'order.delivered']) {
      expect(r.stdout).toMatch(new RegExp(`${event.replace('.', '\\.')}\\s+evt_\\w+  signature verified`));
    }
    expect(r.stdout).toMatch(/status DELIVERED/);
    expect(r.stdout).toMatch(/code •+[0-9A-Z]{4}/);
    // No command is offered for an order of the demo's sandbox, which ends with it.
    expect(r.stdout).toContain('vouchers orders codes ORDER_ID --reveal');
    expect(r.stdout).not.toMatch(/vouchers orders codes ord_/);
    expect(r.stdout).toContain('Next steps');
    // Each next step's note starts in one column, two spaces or more past its command.
    const steps = r.stdout.slice(r.stdout.indexOf('Next steps')).split('\n').slice(1);
    const notes = steps.filter((l) => /^ +vouchers \S.* {2,}\S/.test(l)).map((l) => /^( +vouchers .*? {2,})\S/.exec(l)![1]!.length);
    expect(notes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(notes).size).toBe(1);
    expect(r.stdout).toMatch(/vouchers sandbox trigger order\.refunded {2,}make the sandbox emit/);
    expect(r.stdout + r.stderr).not.toMatch(CODE);
    expect(r.stdout).not.toMatch(/whsec_\w{8,}/);
    expect(readdirSync(configDir)).toEqual([]);
    // The demo's temporary config folder is gone.
    expect(readdirSync(ownTmp)).toEqual([]);
  });

  it('runs the same flow against the document dialect: exit 0, one warning, codes read from the order, still masked', async () => {
    const r = await runCli(['demo', '--time-scale', '0.05', '--dialect', 'document'], { configDir: tempConfigDir() });
    expect(r.code, r.stderr).toBe(0);
    for (const step of STEPS) expect(r.stdout).toContain(step);
    for (const req of [
      'GET /categories',
      'POST /orders  200',
      'POST /webhooks  200',
      'GET /orders/ord_981235  200',
      'GET /wallets',
      'GET /transactions',
    ])
      expect(r.stdout).toContain(req);
    for (const event of ['order.created', 'voucher.issued', 'order.delivered']) {
      expect(r.stdout).toMatch(new RegExp(`${event.replace('.', '\\.')}\\s+evt_[0-9a-f]{32}  signature verified`));
    }
    expect(r.stdout).toContain('ord_981234 DELIVERED from cache');
    expect(r.stdout).toContain('This server has no secure code endpoint');
    expect(r.stdout).toMatch(/code •+[0-9A-Z]{4}/);
    expect(r.stdout).toMatch(/currency_code=USD {2}balance=/);
    expect(r.stdout).toContain("refunds and payouts appear here too, newest first (in this server's own words).\n");
    expect(r.stderr.match(/^Warning: /gm)).toHaveLength(1);
    expect(r.stdout + r.stderr).not.toMatch(CODE);
    expect(r.stdout).not.toMatch(/whsec_\w{8,}/);
    const bad = await runCli(['demo', '--dialect', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--dialect "nope" is not a sandbox dialect');
    // Refused before the demo says anything: a usage error prints nothing on stdout.
    expect(bad.stdout).toBe('');
  });

  it('shows colour and follows the order on a terminal', async () => {
    const r = await runCli(['demo', '--time-scale', '0.05'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\u001b\[/);
    const plain = strip(r.stdout + r.stderr);
    for (const step of STEPS) expect(plain).toContain(step);
    expect(plain).toMatch(/order\.delivered\s+evt_\w+ {2}signature verified/);
    expect(plain).toMatch(/status DELIVERED/);
    expect(plain).not.toMatch(CODE);
  });

  it('on a narrow terminal wraps its lines at spaces to the width, instead of the terminal breaking them mid-word', async () => {
    for (const columns of [60, 100]) {
      const r = await runCli(['demo', '--time-scale', '0.05'], { tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const lines = strip(r.stdout).split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      // A wrapped line goes on under its own indent; the story is all there.
      const plain = strip(r.stdout + r.stderr);
      for (const step of STEPS) expect(plain.replace(/\s+/g, ' ')).toContain(step);
      expect(plain).toMatch(/Idempotency-Key\s+[0-9a-f-]{36}/);
      expect(plain).not.toMatch(CODE);
      // A transaction's order id wrapped goes on further in than the transactions start.
      expect(plain).toMatch(/\n {3}txn_\S+ +ORDER_DEBIT [^\n]*\n {5,}[^\n]*ord_\S+\n/);
      expect(plain).not.toMatch(/\n {3}ord_/);
    }
    // On a wide terminal a sentence is one line: the text carries no line breaks of its own within one.
    const wide = strip((await runCli(['demo', '--time-scale', '0.05'], { tty: true, columns: 220 })).stdout);
    expect(wide).toMatch(
      /\n {3}Sandbox started in this process at \S+ with a temporary profile \(API key \S+; nothing is written to your configuration\)\.\n/,
    );
    expect(wide).toContain('(masked here, as the CLI always does unless you pass --reveal).\n');
    expect(wide).toContain('The full codes come from one secure endpoint, and the server records every call with its trace ID.\n');
    expect(wide).toContain('The listener checks it on the raw bytes, rejects stale timestamps');
    expect(wide).toContain(
      "To see codes in full: vouchers orders codes ORDER_ID --reveal (or --codes-out FILE, mode 0600), for an order of your own: this one was in the demo's sandbox, gone when the demo ends.\n",
    );
    expect(wide).toContain('refunds and payouts appear here too, newest first, each with the balance after it.\n');
    // Piped, each line is whole, as before.
    const piped = await runCli(['demo', '--time-scale', '0.05', '--no-webhooks']);
    expect(piped.stdout).toMatch(/DELIVERED from cache: \S+ \S+ debited {2}Idempotency-Key [0-9a-f-]{36}\n/);
  });

  it('under LANG=C, wraps its lines as shown (ASCII: an ellipsis three cells, an arrow two), none past the edge', async () => {
    for (const columns of [42, 60, 80]) {
      const r = await runCli(['demo', '--time-scale', '0.05', '--no-webhooks'], { tty: true, columns, env: { LANG: 'C' } });
      expect(r.code, r.stderr).toBe(0);
      const lines = strip(r.stdout).split('\n');
      expect(lines.join('\n')).toMatch(/^[\x00-\x7f]*$/);
      for (const line of lines) expect(line.length, `${columns}: ${line}`).toBeLessThanOrEqual(columns);
    }
  });

  it('prints a JSON summary with --json and can skip webhooks', async () => {
    const r = await runCli(['demo', '--time-scale', '0.05', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      ok: boolean;
      steps: { name: string; requests: { trace_id: string }[] }[];
      orders: Record<string, string>;
      events: { event: string; order_id: string }[];
    };
    expect(summary.ok).toBe(true);
    expect(summary.steps.map((s) => s.name)).toHaveLength(6);
    for (const s of summary.steps) for (const q of s.requests) expect(q.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(summary.events).toContainEqual(expect.objectContaining({ event: 'order.delivered', order_id: summary.orders.async }));
    expect(r.stderr).toContain('1. Browse the catalog');

    const quiet = await runCli(['demo', '--time-scale', '0.05', '--no-webhooks']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).not.toContain('signature verified');
    expect(quiet.stdout).toContain('5. Wallets and the latest transactions');
  });

  it('refuses a bad --time-scale', async () => {
    const r = await runCli(['demo', '--time-scale', 'fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--time-scale');
  });

  it('runs from the binary and exits 0, leaving nothing behind', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'vouchers-demo-test-'));
    const configDir = tempConfigDir();
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      // The pace is the in-process tests' (the default is for people, and slower).
      const proc = spawn(process.execPath, [BIN, 'demo', '--time-scale', '0.05'], {
        env: { ...process.env, TMPDIR: tmp, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      proc.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      proc.once('error', reject);
      proc.once('close', (code) => resolve({ code, stdout }));
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('6. Wallets and the latest transactions');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(configDir)).toEqual([]);
  });

  it('Ctrl-C midway stops cleanly: exit 130, no stack trace, sandbox and temporary directory gone', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'vouchers-demo-test-'));
    const configDir = tempConfigDir();
    const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        // Real sandbox pace: the asynchronous order takes seconds, so the signal lands while it is followed.
        const proc = spawn(process.execPath, [BIN, 'demo', '--time-scale', '1'], {
          env: { ...process.env, TMPDIR: tmp, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        let sent = false;
        proc.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          if (!sent && stdout.includes('accepted (202)')) {
            sent = true;
            proc.kill('SIGINT');
          }
        });
        proc.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
        });
        proc.once('error', reject);
        proc.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      },
    );
    // Stopped cleanly, then ended by SIGINT itself (a shell reports 130, and stops a loop around it).
    expect(result.signal, result.stderr).toBe('SIGINT');
    expect(result.code, result.stderr).toBeNull();
    expect(result.stdout).not.toContain('5. Fetch its codes');
    expect(result.stderr).toMatch(/interrupted/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(configDir)).toEqual([]);
  });
});
