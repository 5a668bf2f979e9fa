/**
 * `vouchers sandbox admin <verb>` against a running sandbox, through the real program with
 * a profile holding the admin URL and token: every route, tables when piped, JSON with
 * --json, secrets of new keys masked unless --show-secret, clear errors without a profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfig } from '../../src/core/config/store.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { fastSandbox, profileDir, localProfileDir } from '../helpers/sandbox.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle;
let configDir: string;

beforeAll(async () => {
  sb = await fastSandbox();
  configDir = await localProfileDir(sb);
});
afterAll(async () => {
  await sb.close();
});

const admin = (...args: string[]) => runCli(['sandbox', 'admin', ...args], { configDir });
const cli = (...args: string[]) => runCli(args, { configDir });
const json = <T = any>(text: string) => JSON.parse(text) as T;

async function order(product: string, quantity = 1): Promise<string> {
  const r = await cli('orders', 'create', '--product', product, '--denomination', '10', '--quantity', String(quantity), '--json');
  expect(r.code, r.stderr).toBe(0);
  return json(r.stdout).order_id;
}

describe('vouchers sandbox admin tables on a terminal', () => {
  it('orders list fits 100 columns: ids, statuses, totals and times whole, the rest left out and said', async () => {
    await order('sbx-gated');
    const r = await runCli(['sandbox', 'admin', 'orders', 'list', '--limit', '3'], { configDir, tty: true, columns: 100 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .replace(/\u001b\[[0-9;]*m/g, '')
      .trimEnd()
      .split('\n');
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(100);
    expect(lines.join('\n')).toMatch(/ord_\w{26}/);
    expect(lines.join('\n')).not.toContain('…');
    // The one order is held at the gate, with no next step: that column, empty, goes before the partner.
    expect(r.stderr).toMatch(/Left out to fit 100 columns: next_step\./);
    expect(lines.join('\n')).toContain('ptn_default');
  });
});

describe('vouchers sandbox admin', () => {
  it('info, orders list/get, approve, reject, complete, partial, fail', async () => {
    const info = await admin('info', '--json');
    expect(info.code).toBe(0);
    expect(json(info.stdout)).toMatchObject({ partner_id: 'ptn_default', api_key: sb.apiKey });

    const held = await order('sbx-gated');
    const list = await admin('orders', 'list', '--gate', 'held');
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(new RegExp(`^${held}\\tPENDING\\t10\\.00 USD\\tptn_default\\theld`));
    expect(json((await admin('orders', 'get', held, '--json')).stdout)).toMatchObject({ order_id: held, gate: 'held' });

    const approved = await admin('approve', held, '--json');
    expect(approved.code).toBe(0);
    expect(json(approved.stdout).gate).toBe('approved');
    expect(approved.stderr).toContain('Approved');

    const rejected = await order('sbx-gated');
    const r = await admin('reject', rejected, '--reason', 'fraud check', '--json');
    expect(json(r.stdout).status).toBe('REFUNDED');

    const pending = await order('sbx-gated', 4);
    const partial = await admin('partial', pending, '--delivered', '3', '--json');
    expect(partial.code, partial.stderr).toBe(0);
    expect(json(partial.stdout).status).toBe('PARTIALLY_DELIVERED');
    expect(json(partial.stdout).vouchers.filter((v: { status: string }) => v.status === 'ISSUED')).toHaveLength(3);

    const toComplete = await order('sbx-gated');
    expect(json((await admin('complete', toComplete, '--json')).stdout).status).toBe('DELIVERED');
    const toFail = await order('sbx-gated');
    expect(json((await admin('fail', toFail, '--reason', 'vendor down', '--json')).stdout).status).toBe('REFUNDED');

    const wrongState = await admin('approve', toComplete);
    expect(wrongState.code).toBe(5);
    expect(wrongState.stderr).toContain('not held at the admin gate');
    const missing = await admin('orders', 'get', 'ord_00000000000000000000000000');
    expect(missing.code).toBe(4);
    const tooMany = await admin('partial', toFail, '--delivered', '1');
    expect(tooMany.code).toBe(2);
  });

  it('an unknown --fields name stops a write before anything changes: no key made whose secret is lost, none revoked', async () => {
    const keys = async () => json<{ api_key: string; revoked_at: string | null }[]>((await admin('keys', 'list', '--json')).stdout);
    const before = await keys();
    const wallets = async () => (await admin('partners', 'list', '--json')).stdout;
    const funds = await wallets();
    // With --json the names are the answer's keys; checked before the write all the same.
    for (const mode of [[], ['--json']]) {
      const created = await admin('keys', 'create', '--partner', sb.partnerId, '--fields', 'api_key,bogus', ...mode);
      expect(created.code).toBe(2);
      expect(created.stderr).toContain('unknown field: bogus');
      const rotated = await admin('keys', 'rotate', sb.apiKey, '--fields', 'bogus', ...mode);
      expect(rotated.code).toBe(2);
      const partner = await admin('partners', 'create', '--name', 'Nope', '--fields', 'bogus', ...mode);
      expect(partner.code).toBe(2);
      const funded = await admin('fund', '--currency', 'USD', '--amount', '1', '--fields', 'bogus', ...mode);
      expect(funded.code).toBe(2);
      const revoked = await admin('keys', 'revoke', sb.apiKey, '--fields', 'bogus', ...mode);
      expect(revoked.code).toBe(2);
    }
    expect(await keys()).toEqual(before);
    expect(await wallets()).toBe(funds);
    expect(json<unknown[]>((await admin('partners', 'list', '--json')).stdout).some((p) => (p as { name: string }).name === 'Nope')).toBe(
      false,
    );
    const listedJson = await admin('partners', 'create', '--name', 'Nope', '--json', '--fields');
    expect(listedJson.stdout.split('\n')).toEqual(['partner', 'key', '']);
    // --fields alone lists them, and makes nothing either.
    const listed = await admin('keys', 'create', '--partner', sb.partnerId, '--fields');
    expect(listed.stdout.split('\n')).toEqual(expect.arrayContaining(['api_key', 'api_secret']));
    expect(await keys()).toEqual(before);
  });

  it('webhooks register --fields signing_secret on an endpoint that keeps its secret: registered, exit 0, said unchanged', async () => {
    // A sandbox of its own: the endpoint would receive the other tests' events.
    const own = await fastSandbox();
    try {
      const dir = await profileDir(own, 'local');
      const url = 'http://127.0.0.1:9/fields-hooks';
      expect((await runCli(['webhooks', 'register', '--url', url], { configDir: dir })).code).toBe(0);
      const again = await runCli(['webhooks', 'register', '--url', url, '--fields', 'webhook_id,signing_secret'], { configDir: dir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^signing_secret\t\(unchanged: the answer carries none\)$/m);
    } finally {
      await own.close();
    }
  });

  it('fund, stock, partners, keys (secrets masked), allowlist', async () => {
    const fund = await admin('fund', '--currency', 'eur', '--amount', '250.5', '--json');
    expect(fund.code, fund.stderr).toBe(0);
    expect(json(fund.stdout).transaction).toMatchObject({ type: 'TOP_UP', amount: 250.5 });
    expect((await admin('fund', '--currency', 'EUR', '--amount', '0')).code).toBe(2);
    const gbp = async () =>
      json<{ currency: string; available: number }[]>((await cli('wallets', 'list', '--json')).stdout).find((w) => w.currency === 'GBP')!
        .available;
    const before = await gbp();
    const repeated = await admin('fund', '--currency', 'GBP', '--amount', '1', '--count', '3', '--json');
    expect(repeated.code, repeated.stderr).toBe(0);
    expect(await gbp()).toBe(before + 3);

    const stock = await admin('stock', '--product', 'northwind-store-us', '--denomination', '25', '--count', '0', '--json');
    expect(stock.code, stock.stderr).toBe(0);
    expect(json(stock.stdout).availability.cached['25']).toBe(0);
    expect((await admin('stock', '--product', 'northwind-store-us')).code).toBe(2);

    const created = await admin('partners', 'create', '--name', 'Second shop', '--wallet', 'USD=100', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { partner, key } = json(created.stdout);
    const secret = sb.state.keys[key.api_key]!.api_secret;
    expect(created.stdout + created.stderr).not.toContain(secret);
    // Running `partners create` again would make a second partner: the hint is to rotate this key.
    expect(created.stderr).toContain(`vouchers sandbox admin keys rotate ${key.api_key} --show-secret`);
    expect((await admin('partners', 'list')).stdout).toContain(partner.partner_id);

    const shown = await admin('keys', 'create', '--partner', partner.partner_id, '--show-secret', '--json');
    const newKey = json(shown.stdout);
    expect(newKey.api_secret).toBe(sb.state.keys[newKey.api_key]!.api_secret);

    const rotated = await admin('keys', 'rotate', newKey.api_key, '--json');
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotatedKey = json(rotated.stdout);
    expect(rotatedKey.replaces).toBe(newKey.api_key);
    expect(rotated.stdout).not.toContain(sb.state.keys[rotatedKey.api_key]!.api_secret);

    const allow = await admin('allowlist', 'set', rotatedKey.api_key, '127.0.0.0/8', '2001:db8::/32', '--json');
    expect(json(allow.stdout).allowlist).toEqual(['127.0.0.0/8', '2001:db8::/32']);
    const revoked = await admin('keys', 'revoke', rotatedKey.api_key, '--json');
    expect(json(revoked.stdout).revoked_at).not.toBeNull();
    const keys = await admin('keys', 'list', '--partner', partner.partner_id, '--json');
    expect(json<unknown[]>(keys.stdout)).toHaveLength(3);
    expect(keys.stdout).not.toContain('api_secret');
  });

  it('events, deliveries, redeliver, code accesses, clock, drifts, reset', async () => {
    const id = await order('sbx-instant');
    const events = json<{ event: string; event_id: string }[]>((await admin('events', 'list', '--order', id, '--json')).stdout);
    expect(events.map((e) => e.event)).toEqual(['order.created', 'voucher.issued', 'order.delivered']);

    const noEndpoint = await admin('redeliver', events[0]!.event_id);
    expect(noEndpoint.code).toBe(4);
    expect((await admin('deliveries', 'list')).stdout).toBe('');

    const codes = await cli('orders', 'codes', id, '--json');
    expect(codes.code).toBe(0);
    const accesses = json<{ order_id: string; trace_id: string }[]>((await admin('code-accesses', '--order', id, '--json')).stdout);
    expect(accesses).toHaveLength(1);
    expect(accesses[0]!.trace_id).toMatch(/^[0-9a-f]{32}$/);

    const clock = await admin('clock', 'advance', '2h', '--json');
    expect(clock.code, clock.stderr).toBe(0);
    expect(json(clock.stdout).offset_ms).toBeGreaterThanOrEqual(7_200_000);
    expect((await admin('clock', 'show')).stdout).toMatch(/offset\t2h/);
    const soon = await admin('clock', 'advance', 'soon');
    expect(soon.code).toBe(2);
    expect(soon.stderr).toContain('clock advance "soon" is not a duration');

    const drift = await admin('drifts', 'create', '--order', id, '--json');
    expect(drift.code, drift.stderr).toBe(0);
    const driftId = json(drift.stdout).drift_id;
    const resolved = await admin('drifts', 'resolve', driftId, '--resolution', 'escalated', '--json');
    expect(json(resolved.stdout).resolution).toBe('escalated');
    expect((await admin('drifts', 'list')).stdout).toContain(driftId);
    // A vendor record that is a code is shown masked, as the operator surface shows codes.
    const coded = await admin('drifts', 'create', '--order', id, '--vendor-record', 'X7K2-ABCD-EFGH-1234');
    expect(coded.code, coded.stderr).toBe(0);
    expect(coded.stdout).toMatch(/^vendor_record\t.*1234$/m);
    for (const r of [coded, await admin('drifts', 'list'), await admin('drifts', 'list', '--json')])
      expect(r.stdout + r.stderr).not.toContain('X7K2-ABCD');

    const refused = await admin('reset');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const reset = await admin('reset', '--yes', '--json');
    expect(reset.code).toBe(0);
    expect(json(reset.stdout)).toMatchObject({ reset: true, api_key: sb.apiKey });
    expect(Object.keys(sb.state.orders)).toHaveLength(0);
  });

  it('redelivers to a registered endpoint and lists the deliveries', async () => {
    const got: string[] = [];
    const { createServer } = await import('node:http');
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(String(req.headers['x-webhook-id']));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const port = (receiver.address() as { port: number }).port;
      expect((await cli('webhooks', 'register', '--url', `http://127.0.0.1:${port}/hook`)).code).toBe(0);
      const id = await order('sbx-instant');
      const first = json<{ event_id: string }[]>((await admin('events', 'list', '--order', id, '--json')).stdout)[0]!.event_id;
      const again = await admin('redeliver', first, '--json');
      expect(again.code, again.stderr).toBe(0);
      await until(() => got.filter((g) => g === first).length >= 2, 'the redelivery');
      expect(got.filter((g) => g === first)).toHaveLength(2);
      const deliveries = json<{ event_id: string; status: string }[]>(
        (await admin('deliveries', 'list', '--event', first, '--json')).stdout,
      );
      expect(deliveries).toHaveLength(2);
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('says how to get an admin surface when the profile has none', async () => {
    const dir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    store.set('prod', { base_url: 'https://partner.example/api/v1', api_key: 'k', api_secret: 's' });
    store.setCurrent('prod');
    const r = await runCli(['sandbox', 'admin', 'orders', 'list'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('profile "prod" has no sandbox admin URL and token');
    expect(r.stderr).toContain('vouchers sandbox start');
    const t = await runCli(['sandbox', 'trigger', 'order.delivered'], { configDir: dir });
    expect(t.code).toBe(2);
    // With no configuration at all, it does not pretend a "default" profile exists.
    const empty = await runCli(['sandbox', 'admin', 'info'], { configDir: tempConfigDir() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('there is no profile "default", so no sandbox admin URL and token');
    // A server and key from the environment (a CI job): what it needs, not a missing "default" profile.
    const env = await runCli(['sandbox', 'admin', 'info'], {
      configDir: tempConfigDir(),
      env: { VOUCHERS_BASE_URL: 'http://127.0.0.1:9/api/v1', VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's' },
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(
      'the sandbox admin URL and token come only from a saved profile (no environment variable gives them), and this run uses none: its server and credentials come from VOUCHERS_BASE_URL, VOUCHERS_API_KEY and VOUCHERS_API_SECRET',
    );
    expect(env.stderr).not.toContain('profile "default"');
  });

  it('a profile made by hand gets the admin surface with profiles set admin_url and admin_token (token from stdin)', async () => {
    const dir = await profileDir(sb, 'acme');
    const before = await runCli(['sandbox', 'admin', 'info'], { configDir: dir });
    expect(before.code).toBe(2);
    // The profile's own name, ready to run.
    expect(before.stderr).toContain('vouchers profiles set acme admin_url URL, then vouchers profiles set acme admin_token --stdin');
    expect((await runCli(['profiles', 'set', 'acme', 'admin_url', 'not a url'], { configDir: dir })).code).toBe(2);
    expect((await runCli(['profiles', 'set', 'acme', 'admin_url', sb.adminUrl], { configDir: dir })).code).toBe(0);
    const token = await runCli(['profiles', 'set', 'acme', 'admin_token', '--stdin'], { configDir: dir, stdin: sb.adminToken });
    expect(token.code, token.stderr).toBe(0);
    const info = await runCli(['sandbox', 'admin', 'info'], { configDir: dir });
    expect(info.code, info.stderr).toBe(0);
    expect((await runCli(['sandbox', 'trigger', 'order.processing'], { configDir: dir })).code).toBe(0);
  });

  it('reports a wrong admin token and a stopped sandbox clearly', async () => {
    const dir = await profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: 'wrong-token' });
    const bad = await runCli(['sandbox', 'admin', 'info'], { configDir: dir });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('restart it with vouchers sandbox start');
    const stopped = await profileDir(sb, 'local', { admin_url: 'http://127.0.0.1:1/admin', admin_token: 'x' });
    const down = await runCli(['sandbox', 'admin', 'info'], { configDir: stopped });
    expect(down.code).toBe(7);
    expect(down.stderr).toContain('is the sandbox running?');
    // The command starts the sandbox the profile points at, not one on the default port.
    expect(down.stderr).toContain('start it with vouchers sandbox start --port 1');
  });
});
