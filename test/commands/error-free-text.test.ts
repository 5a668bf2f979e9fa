/**
 * A server's error message that quotes a voucher code or a secret (a 409 naming the voucher
 * already issued, a 401 echoing the webhook secret or the signature): masked in the error
 * block, the --json error and the request log, in the one path every error takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const CODE = 'ABCD-EFGH-1234-5678';
const WEBHOOK_SECRET = 'whsec_profileOWNsecret0042';
const HEX = '0123456789abcdef0123456789abcdef';
const LEAKS = [CODE, WEBHOOK_SECRET, HEX, 'api-secret-0042-longer'];

let server: LoopbackServer;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'POST')
      return sendJson(res, 409, { error: { name: 'Conflict', code: CODE, message: `voucher ${CODE} already issued` } });
    return sendJson(res, 401, {
      error: {
        name: 'Unauthorized',
        code: 'BAD_SIGNATURE',
        message: `signature t=1,v1=${HEX} does not match; secrets tried: ${WEBHOOK_SECRET}, api-secret-0042-longer`,
      },
    });
  });
  dir = tempConfigDir();
  env = {
    VOUCHERS_BASE_URL: server.baseUrl,
    VOUCHERS_API_KEY: 'k',
    VOUCHERS_API_SECRET: 'api-secret-0042-longer',
    VOUCHERS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    VOUCHERS_MAX_RETRIES: '0',
    NO_COLOR: '1',
  };
});
afterAll(() => server.close());

const cli = (argv: string[]) => runCli(argv, { env, configDir: dir, overrides: { clock: quickClock() } });

/** The request log as written, or '' when no request was logged at all. */
function requestLogText(): string {
  try {
    return readFileSync(join(dir, 'requests.log'), 'utf8');
  } catch {
    return '';
  }
}

describe("a server's error text quoting a code or a secret", () => {
  it('a 409 naming the voucher: masked in the error line, --json and the request log', async () => {
    const text = await cli(['orders', 'create', '--product', 'p', '--denomination', '25', '-y']);
    expect(text.code).toBe(5);
    expect(text.stderr).toContain('voucher ••••••••5678 already issued');
    const json = await cli(['orders', 'create', '--product', 'p', '--denomination', '25', '-y', '--json', '--debug']);
    expect(JSON.parse(json.stderr.split('\n').find((l) => l.startsWith('{'))!)).toMatchObject({
      error: { message: 'voucher ••••••••5678 already issued', status: 409 },
    });
    const log = readFileSync(join(dir, 'requests.log'), 'utf8');
    expect(log).toContain('"error_code":"HTTP_409"');
    for (const s of LEAKS) expect(text.stdout + text.stderr + json.stdout + json.stderr + log, s).not.toContain(s);
  });

  it("a 401 echoing the signature and the profile's secrets: none of them shown, with --debug neither", async () => {
    const r = await cli(['orders', 'get', 'ord_1', '--debug']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('does not match');
    for (const s of LEAKS) expect(r.stdout + r.stderr, s).not.toContain(s);
  });
});

describe('a usage error echoing a typed value', () => {
  const SECRET = 'sk_live_SUPERSECRET123';
  const RANDOM = 'Zt4q8PmX2vLr9KsW3nBy7Hd';
  const SANDBOX_SECRET = `vs_test_605b1d7e9a${'0123456789abcdef'.repeat(2)}d575c8`;
  it('a secret passed to the wrong flag or setting is masked (text and --json); a harmless value is still echoed', async () => {
    for (const argv of [
      ['profiles', 'add', 'x', '--signing-path', SECRET],
      ['profiles', 'add', 'x', '--signing-path', SECRET, '--json'],
      ['orders', 'list', '--limit', SECRET],
      ['orders', 'list', '--limit', RANDOM, '--json'],
      ['--timeout', RANDOM, 'orders', 'list'],
      // The sandbox's own secret shape: a prefix and 48 hex digits.
      ['orders', 'list', '--limit', SANDBOX_SECRET],
      ['profiles', 'set', 'x', 'timeout', SANDBOX_SECRET],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).not.toMatch(/SUPERSECRET|Zt4q8PmX2vLr9KsW3nBy7Hd|605b1d7e9a/);
    }
    // --debug prints the stack, which repeats the message: masked the same way.
    for (const argv of [
      ['orders', 'list', '--limit', SECRET, '--debug'],
      ['orders', 'list', '--limit', SECRET, '--debug', '--json'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/\n\s+at /);
      expect(r.stderr, argv.join(' ')).not.toContain('SUPERSECRET');
    }
    const plain = await cli(['orders', 'list', '--limit', 'abc']);
    expect(plain.stderr).toContain('"abc"');
    const choice = await cli(['profiles', 'add', 'x', '--signing-path', 'fulll']);
    expect(choice.stderr).toContain('--signing-path "fulll" is not a valid variant');
  });
});

describe("the profile's own secrets typed in the wrong place, whatever their shape", () => {
  // No secret's prefix, not 20 random characters: only the profile tells it is the secret.
  const API_SECRET = 'test_api_secret_4f9c2e71b8d34a06';
  const HOOK_SECRET = 'hook-key-81f3c2';
  it("are masked in a usage error raised before the command read the profile (ours and commander's)", async () => {
    const own = { ...env, VOUCHERS_API_SECRET: API_SECRET, VOUCHERS_WEBHOOK_SECRET: HOOK_SECRET };
    for (const argv of [
      ['orders', 'list', '--limit', API_SECRET],
      ['orders', 'list', '--limit', API_SECRET, '--json', '--debug'],
      ['profiles', 'add', 'x', '--signing-path', API_SECRET],
      ['orders', 'list', '--limit', HOOK_SECRET],
    ]) {
      const r = await runCli(argv, { env: own, configDir: dir, overrides: { clock: quickClock() } });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/--limit|--signing-path/);
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain('4f9c2e71b8d34a06');
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain(HOOK_SECRET);
    }
  });
});

describe("the profile's API secret pasted where an id goes", () => {
  it('is never sent: not in the URL, the error, the request log', async () => {
    const before = server.requests.length;
    for (const argv of [
      ['products', 'get', 'api-secret-0042-longer'],
      ['orders', 'get', 'ord_api-secret-0042-longer', '--json'],
      ['orders', 'list', '--reference', 'api-secret-0042-longer'],
      ['api', 'GET', '/products/api-secret-0042-longer'],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/holds this profile's API secret/);
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain('api-secret-0042-longer');
    }
    expect(server.requests.length).toBe(before);
    expect(requestLogText()).not.toContain('api-secret-0042-longer');
  });

  it('given as the idempotency key, is neither sent nor printed as the key to retry with, nor logged', async () => {
    const before = server.requests.length;
    const key = ['--idempotency-key', 'key-api-secret-0042-longer'];
    for (const argv of [
      ['orders', 'create', '--product', 'p1', '--denomination', '10', ...key],
      ['orders', 'create', '--product', 'p1', '--denomination', '10', '--json', ...key],
      ['payouts', 'create', '--amount', '10', '--currency', 'USD', ...key],
      ['api', 'POST', '/orders', '-d', '{}', ...key],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(/idempotency key holds this profile's API secret/);
      expect(r.stdout + r.stderr, argv.join(' ')).not.toContain('api-secret-0042-longer');
    }
    expect(server.requests.length).toBe(before);
    expect(requestLogText()).not.toContain('api-secret-0042-longer');
  });
});
