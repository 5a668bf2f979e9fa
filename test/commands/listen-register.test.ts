/**
 * `listen --register` against the local sandbox: the endpoint is registered with the
 * listener's own URL (the API is on loopback), the secret saved in the profile (never
 * printed), and an asynchronous order's events arrive verified, stored and shown.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFactory } from '../../src/factory.js';
import { run } from '../../src/main.js';
import { BIN } from '../helpers/bin.js';
import { testIO, type TestIO } from '../helpers/io.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox, localProfileDir, profileDir } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';
import { deliver, orderEvent } from '../listener/deliveries.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function startListen(env: Record<string, string>, extra: string[] = []): Promise<{ io: TestIO; done: Promise<number> }> {
  const io = testIO({ env });
  const done = run(['listen', '--register', '--port', '0', '--json', ...extra], io);
  closers.push(async () => {
    io.interrupt();
    await done;
  });
  await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
  return { io, done };
}

describe('vouchers listen --register (sandbox)', () => {
  it("registers its own URL, saves the secret, and receives an async order's events", async () => {
    const sb = await fastSandbox();
    closers.push(() => sb.close());
    // As \`sandbox start\` writes it: with the operator surface, the sandbox's 404 to GET /webhooks says "none registered".
    const configDir = await localProfileDir(sb);
    const env = { VOUCHERS_CONFIG_DIR: configDir };

    const { io } = await startListen(env);
    // With --json every line on stderr is a JSON notice.
    const notices = io
      .stderrText()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notice: { code: string; message: string } }).notice);
    expect(notices.map((n) => n.code)).toEqual(expect.arrayContaining(['REGISTERED', 'READY', 'INBOX']));
    expect(notices.find((n) => n.code === 'REGISTERED')!.message).toMatch(
      /Registered http:\/\/127\.0\.0\.1:\d+\/webhooks \(wh_\w+\); signing secret saved in profile "local"/,
    );
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    const secret = /"webhook_secret":\s*"(whsec_[^"]+)"/.exec(config)?.[1];
    expect(secret).toBeDefined();

    const f = createFactory(testIO({ env }), () => ({}));
    closers.push(() => f.dispose());
    const client = await f.client();
    const order = await client.request<{ order_id: string; status: string }>({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'sbx-async', denomination: 25, quantity: 1 }] },
    });
    expect(order.data.status).toBe('PENDING');
    const orderId = order.data.order_id;

    const events = () =>
      io
        .stdoutText()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; event: string; order_id: string });
    await until(() => events().some((e) => e.event === 'order.delivered' && e.order_id === orderId), 'order.delivered', 10_000);
    const mine = events()
      .filter((e) => e.kind === 'event' && e.order_id === orderId)
      .map((e) => e.event);
    expect(mine).toEqual(expect.arrayContaining(['order.created', 'order.processing', 'voucher.issued', 'order.delivered']));
    expect(io.stdoutText() + io.stderrText()).not.toContain(secret!);

    const stored = readFileSync(join(configDir, 'events.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).envelope.event);
    expect(stored).toEqual(expect.arrayContaining(mine));
    // Its look-up of the endpoint before registering (404: none yet) is the CLI's own probe:
    // vouchers log --failed leaves it out.
    const lookups = readFileSync(join(configDir, 'requests.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method: string; path: string; status: number | null; probe?: boolean })
      .filter((e) => e.method === 'GET' && e.path === '/webhooks');
    expect(lookups).toEqual([expect.objectContaining({ status: 404, probe: true })]);
    const failed = await runCli(['log', '--failed', '--json'], { configDir });
    expect(failed.stdout).not.toContain('/webhooks');

    // No endpoint before, so none is put back: stopping says where the endpoint still points,
    // and the command that starts a listener there again (its port: --port 0 picked a free one).
    const url = /Registered (http:\/\/\S+) \(/.exec(io.stderrText())![1]!;
    const port = new URL(url).port;
    expect(port).not.toBe('4242');
    io.interrupt();
    await until(() => io.stderrText().includes('Stopped.'), 'the stop');
    await until(() => io.stderrText().includes('still points'), 'the note');
    expect(io.stderrText()).toContain(
      `The webhook endpoint still points at ${url}: deliveries fail while no listener runs there, and the API retries each for 24 hours. ` +
        `Start one again within that time to receive them: vouchers listen --register --port ${port}; or remove the endpoint: vouchers webhooks delete"}}\n`,
    );
    expect(io.stderrText()).not.toContain('Put the webhook endpoint back');
  });

  /** Start `listen ARGS` against a fresh sandbox's local profile, stop it with Ctrl-C (exit 0): its stderr, all it printed, and the port it bound. */
  const listenThenStop = async (args: string[]): Promise<{ stderr: string; output: string; port: string }> => {
    const sb = await fastSandbox();
    closers.push(() => sb.close());
    const configDir = await localProfileDir(sb);
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
    const done = run(['listen', '--register', '--port', '0', ...args], io);
    await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
    const port = new URL(/Registered (http:\/\/\S+)/.exec(io.stderrText())![1]!).port;
    io.interrupt();
    expect(await done).toBe(0);
    return { stderr: io.stderrText(), output: io.stdoutText() + io.stderrText(), port };
  };

  it('the command that starts a listener where the endpoint was left keeps its own inbox and the app it forwards to', async () => {
    const inbox = join(tempConfigDir(), 'hooks.ndjson');
    const { stderr, port } = await listenThenStop(['--inbox', inbox, '--forward-to', 'http://127.0.0.1:9/app']);
    expect(stderr).toContain(
      `Start one again within that time to receive them: vouchers listen --register --port ${port} --forward-to http://127.0.0.1:9/app --inbox ${inbox}; `,
    );
  });

  it('the command that starts a listener where the endpoint was left keeps its forward retries and timeout, and names its forward headers without their values', async () => {
    const { stderr, output, port } = await listenThenStop([
      '--forward-to',
      'http://127.0.0.1:9/app',
      '--forward-retries',
      '1',
      '--forward-timeout',
      '3',
      '--forward-header',
      'X-A: tok-123',
    ]);
    expect(stderr).toContain(
      `Start one again within that time to receive them: vouchers listen --register --port ${port} --forward-to http://127.0.0.1:9/app --forward-retries 1 --forward-timeout 3 (add --forward-header for x-a as this listener had it: its value is left out here); `,
    );
    expect(output).not.toContain('tok-123');
  });

  it('a forward URL with a credential: the command leaves it out with its forward options, and says so', async () => {
    const { stderr, output, port } = await listenThenStop([
      '--forward-to',
      'http://admin:S3cretPass@127.0.0.1:9/app',
      '--forward-retries',
      '1',
    ]);
    expect(stderr).toContain(
      `Start one again within that time to receive them: vouchers listen --register --port ${port} (add --forward-to with the URL this listener forwarded to, and its other --forward-… options: left out here, as the URL holds a credential); `,
    );
    expect(output).not.toContain('S3cretPass');
  });

  it('with credentials from the environment only, keeps the secret for this listener and creates no profile', async () => {
    const sb = await fastSandbox();
    closers.push(() => sb.close());
    const configDir = tempConfigDir();
    const env = {
      VOUCHERS_CONFIG_DIR: configDir,
      VOUCHERS_BASE_URL: sb.baseUrl,
      VOUCHERS_API_KEY: sb.apiKey,
      VOUCHERS_API_SECRET: sb.apiSecret,
    };
    // Without the operator surface, the 404 to GET /webhooks does not say "none registered": confirmed with --yes.
    const { io } = await startListen(env, ['--yes']);
    expect(io.stderrText()).toMatch(
      /Registered http:\/\/127\.0\.0\.1:\d+\/webhooks \(wh_\w+\); its new signing secret is kept by this listener only \(no profile to save it in/,
    );
    expect(existsSync(join(configDir, 'config.json')) ? readFileSync(join(configDir, 'config.json'), 'utf8') : '').not.toMatch(
      /webhook_secret/,
    );
    // Deliveries still verify with it: an order's events reach the listener.
    const f = createFactory(testIO({ env }), () => ({}));
    closers.push(() => f.dispose());
    const order = await (
      await f.client()
    ).request<{ order_id: string }>({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
    });
    await until(() => io.stdoutText().includes(order.data.order_id), "the order's events", 10_000);
    expect(io.stdoutText()).toMatch(/"kind":"event"/);
  });

  it('an endpoint that pointed elsewhere: says so, names its event types, and puts it back when it stops', async () => {
    const sb = await fastSandbox();
    closers.push(() => sb.close());
    const configDir = await profileDir(sb, 'local');
    const env = { VOUCHERS_CONFIG_DIR: configDir };
    const appUrl = 'http://127.0.0.1:9/app-hooks';
    const before = await runCli(['webhooks', 'register', '--url', appUrl, '--events', 'order.delivered,order.refunded'], { configDir });
    expect(before.code, before.stderr).toBe(0);
    const endpoint = async () =>
      JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string; events: string[] };

    const io = testIO({ env });
    const done = run(['listen', '--register', '--port', '0'], io);
    await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
    expect(io.stderrText()).toMatch(
      /Registered http:\/\/127\.0\.0\.1:\d+\/webhooks \(wh_\w+\); it delivers order\.delivered, order\.refunded\./,
    );
    expect(io.stderrText()).toContain(
      `The endpoint pointed at ${appUrl}: it points at this listener while it runs and is put back when it stops ` +
        `(should the listener be killed instead: vouchers webhooks register --url ${appUrl} --events order.delivered,order.refunded).`,
    );
    expect((await endpoint()).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    io.interrupt();
    expect(await done).toBe(0);
    expect(io.stderrText()).toContain(`Put the webhook endpoint back: ${appUrl}.`);
    expect(await endpoint()).toMatchObject({ url: appUrl, events: ['order.delivered', 'order.refunded'] });
  });

  it('an endpoint registered again while it runs (a new deploy of the app): left where it now points, not put back', async () => {
    const { configDir, appUrl } = await appEndpoint();
    const endpoint = async () => JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string };
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
    const done = run(['listen', '--register', '--port', '0'], io);
    await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
    expect(io.stderrText()).toContain(`The endpoint pointed at ${appUrl}:`);
    const newDeploy = 'http://127.0.0.1:9/new-deploy';
    expect((await runCli(['webhooks', 'register', '--url', newDeploy], { configDir })).code).toBe(0);
    io.interrupt();
    expect(await done).toBe(0);
    expect((await endpoint()).url).toBe(newDeploy);
    expect(io.stderrText()).toContain(
      `The webhook endpoint was pointed at ${newDeploy} while this listener ran: left there, not put back to ${appUrl}.`,
    );
    expect(io.stderrText()).not.toContain('Put the webhook endpoint back');
    expect(existsSync(join(configDir, 'listen-endpoints.json'))).toBe(false);
  });

  it('no endpoint before, one registered elsewhere while it runs: not said to still point at the listener', async () => {
    const sb = await fastSandbox();
    closers.push(() => sb.close());
    const configDir = await localProfileDir(sb);
    const { io, done } = await startListen({ VOUCHERS_CONFIG_DIR: configDir });
    const app = 'http://127.0.0.1:9/app-hooks';
    expect((await runCli(['webhooks', 'register', '--url', app], { configDir })).code).toBe(0);
    io.interrupt();
    expect(await done).toBe(0);
    expect(io.stderrText()).toContain(`The webhook endpoint was pointed at ${app} while this listener ran: left there.`);
    expect(io.stderrText()).not.toContain('still points');
  });

  it('an endpoint removed while it runs: not put back, nor said to point at the listener', async () => {
    const { configDir, appUrl } = await appEndpoint();
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
    const done = run(['listen', '--register', '--port', '0'], io);
    await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
    expect((await runCli(['webhooks', 'delete', '--yes'], { configDir })).code).toBe(0);
    io.interrupt();
    expect(await done).toBe(0);
    expect((await runCli(['webhooks', 'show'], { configDir })).code).toBe(4);
    expect(io.stderrText()).toContain(`The webhook endpoint was removed while this listener ran: left so, not put back to ${appUrl}.`);
    expect(io.stderrText()).not.toContain('still points');
  });
});

/** A sandbox whose webhook endpoint points at an app (order.delivered), and a profile for it. */
async function appEndpoint(): Promise<{ configDir: string; appUrl: string }> {
  const sb = await fastSandbox();
  closers.push(() => sb.close());
  const configDir = await profileDir(sb, 'local');
  const appUrl = 'http://127.0.0.1:9/app-hooks';
  expect((await runCli(['webhooks', 'register', '--url', appUrl, '--events', 'order.delivered'], { configDir })).code).toBe(0);
  return { configDir, appUrl };
}

/** `vouchers listen --register --port 0` in a process of its own, once it is ready (killed after the test). */
async function spawnListener(configDir: string, extra: string[] = []) {
  const proc = spawn(process.execPath, [BIN, 'listen', '--register', '--port', '0', ...extra], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  closers.push(async () => {
    proc.kill('SIGKILL');
    await exited;
  });
  await until(() => stderr.includes('Ready!') || /Error/.test(stderr), 'the listener', 15_000);
  return { proc, exited, stderr: () => stderr };
}

describe('vouchers listen --register after a listener was killed (SIGKILL) while registered', () => {
  it('the next one puts back the endpoint the killed one had replaced, not the dead URL, and forgets the note', async () => {
    const { configDir, appUrl } = await appEndpoint();
    const { proc, exited } = await spawnListener(configDir);
    proc.kill('SIGKILL');
    await exited;
    const shown = async () =>
      JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string; events: string[] };
    const dead = (await shown()).url;
    expect(dead).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);

    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir } });
    const done = run(['listen', '--register', '--port', '0'], io);
    await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the second listener', 10_000);
    expect(io.stderrText()).toContain(
      `The endpoint pointed at a listener that stopped without putting it back; before that, at ${appUrl}:`,
    );
    io.interrupt();
    expect(await done).toBe(0);
    expect(io.stderrText()).toContain(`Put the webhook endpoint back: ${appUrl}.`);
    expect(await shown()).toMatchObject({ url: appUrl, events: ['order.delivered'] });
    expect(existsSync(join(configDir, 'listen-endpoints.json'))).toBe(false);
  });
});

describe('vouchers listen --register, its terminal closed (SIGHUP)', () => {
  it('stops as on Ctrl-C: the webhook endpoint is put back', async () => {
    const { configDir, appUrl } = await appEndpoint();
    const { proc, exited, stderr: err } = await spawnListener(configDir);
    const shown = async () => JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string };
    expect((await shown()).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    proc.kill('SIGHUP');
    expect(await exited, err()).toBe(0); // as after Ctrl-C: a listener's normal stop
    expect(err()).toContain(`Put the webhook endpoint back: ${appUrl}.`);
    expect((await shown()).url).toBe(appUrl);
  });

  it('its output closed (`listen --json | head -1`): stops as on Ctrl-C, the endpoint put back, exit 0', async () => {
    const { configDir, appUrl } = await appEndpoint();
    const { proc, exited, stderr: err } = await spawnListener(configDir, ['--json']);
    const order = async () => runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], { configDir });
    let first = '';
    const closed = new Promise<void>((resolve) =>
      proc.stdout.on('data', (c: Buffer) => {
        first += c.toString();
        if (first.includes('\n')) {
          proc.stdout.destroy();
          resolve();
        }
      }),
    );
    expect((await order()).code).toBe(0);
    await closed;
    // The next events are written to the closed pipe.
    expect((await order()).code).toBe(0);
    expect(await exited, err()).toBe(0);
    expect(err()).toContain(`Put the webhook endpoint back: ${appUrl}.`);
    const shown = JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string };
    expect(shown.url).toBe(appUrl);
  });

  /** A server whose GET /webhooks answers `get`, and whose POST answers `post`'s status and body; counts the POSTs. */
  async function serverAnswering(get: [number, unknown], post: (url: string) => [number, unknown]) {
    const { sendJson, startLoopbackServer } = await import('../helpers/loopback-server.js');
    const posts: string[] = [];
    const server = await startLoopbackServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, ...get);
      posts.push(req.body);
      return sendJson(res, ...post((JSON.parse(req.body) as { url: string }).url));
    });
    closers.push(() => server.close());
    const env = {
      VOUCHERS_CONFIG_DIR: tempConfigDir(),
      VOUCHERS_BASE_URL: server.baseUrl,
      VOUCHERS_API_KEY: 'k',
      VOUCHERS_API_SECRET: 'sk_test_0123456789',
    };
    return { env, posts };
  }

  /** listen --register --yes against a server whose GET /webhooks answers `get`, and whose POST answers `post`'s status and body. */
  async function listenAgainst(get: [number, unknown], post: (url: string) => [number, unknown]) {
    const { env, posts } = await serverAnswering(get, post);
    const { io } = await startListen(env, ['--yes']);
    expect(posts).toHaveLength(1);
    expect(io.stderrText()).toContain(
      '"code":"PREVIOUS_ENDPOINT_UNKNOWN","message":"this server did not show which endpoint was registered before (GET /webhooks), so none is put back',
    );
    expect(io.stderrText()).not.toContain('whsec_loopback');
  }

  it('a server answering 404 to GET /webhooks (it has no such endpoint, as the document has none): warns that none is put back, never takes it for "no endpoint"', async () => {
    await listenAgainst([404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } }], (url) => [
      200,
      { id: 'wh_1', url, secret: 'whsec_loopback_0123456789abcdef' },
    ]);
  });

  it('a server that does not show the endpoint before: warns that none is put back when it stops', async () => {
    await listenAgainst([405, { error: { name: 'MethodNotAllowed', code: 'METHOD_NOT_ALLOWED', message: 'no' } }], (url) => [
      201,
      { webhook_id: 'wh_1', url, signing_secret: 'whsec_loopback_0123456789abcdef' },
    ]);
  });

  it('a server that lists several signing secrets without saying which one signs: the listener verifies with each and saves none', async () => {
    const listed = ['whsec_listed_a_0123456789abcdef', 'whsec_listed_b_0123456789abcdef'];
    const { env, posts } = await serverAnswering(
      [405, { error: { name: 'MethodNotAllowed', code: 'METHOD_NOT_ALLOWED', message: 'no' } }],
      (url) => [201, { webhook_id: 'wh_1', url, signing_secrets: listed }],
    );
    const { io } = await startListen(env, ['--yes']);
    // No rotation to get a secret: the answer has them.
    expect(posts).toHaveLength(1);
    expect(io.stderrText()).toContain(
      'the answer lists 2 signing secrets without saying which one signs deliveries: this listener verifies with each, and none was saved in the profile',
    );
    for (const secret of listed) expect(io.stderrText()).not.toContain(secret);
    const url = /Listening on (http:\/\/[^\s"\\]+)/.exec(io.stderrText())?.[1];
    expect(url, io.stderrText()).toBeDefined();
    for (const [i, secret] of listed.entries()) {
      const answer = await deliver(url!, orderEvent(i + 1), [secret]);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    }
  });

  it('a server that registers the listener without a signing secret, even when asked for a new one: puts the endpoint it replaced back, says so, exit 2', async () => {
    const app = { webhook_id: 'wh_1', url: 'https://app.example.com/hooks', events: ['order.delivered'] };
    const { env, posts: sent } = await serverAnswering([200, app], (url) => [200, { ...app, url }]);
    const io = testIO({ env });
    const code = await run(['listen', '--register', '--port', '0', '--yes'], io);
    expect(code, io.stderrText()).toBe(2);
    const posts = sent.map((b) => JSON.parse(b) as Record<string, unknown>);
    // Registered, asked for a secret, then put back as it was.
    expect(posts.map((p) => p.url)).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/),
      expect.any(String),
      'https://app.example.com/hooks',
    ]);
    expect(posts[1]).toMatchObject({ rotate_secret: true });
    expect(posts[2]).toMatchObject({ events: ['order.delivered'] });
    expect(io.stderrText()).toContain('the API registered this listener without a signing secret');
    expect(io.stderrText()).toContain('the endpoint was put back to https://app.example.com/hooks');
    expect(io.stderrText()).not.toMatch(/ at .*\.(ts|js|cjs):\d+/);
  });

  it('a request for a new secret that fails after the listener was registered: the endpoint it replaced is put back before the error', async () => {
    const app = { webhook_id: 'wh_1', url: 'https://app.example.com/hooks', events: ['order.delivered'] };
    let n = 0;
    const { env, posts } = await serverAnswering([200, app], (url) =>
      n++ === 1 ? [400, { error: { name: 'BadRequest', code: 'BAD_REQUEST', message: 'no rotation here' } }] : [200, { ...app, url }],
    );
    const io = testIO({ env });
    expect(await run(['listen', '--register', '--port', '0', '--yes'], io), io.stderrText()).toBe(5);
    expect(posts.map((b) => (JSON.parse(b) as { url: string }).url).at(-1)).toBe('https://app.example.com/hooks');
    expect(posts).toHaveLength(3);
    expect(io.stderrText()).toContain('no rotation here');
  });

  it('a server that does not show the endpoint before, without --yes and no terminal: registers nothing, says why and what to add, exit 2', async () => {
    const { env, posts } = await serverAnswering([404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } }], (url) => [
      200,
      { id: 'wh_1', url, secret: 'whsec_loopback_0123456789abcdef' },
    ]);
    const io = testIO({ env });
    const code = await run(['listen', '--register', '--port', '0'], io);
    expect(code).toBe(2);
    expect(posts).toHaveLength(0);
    expect(io.stderrText()).toContain('this server does not show which one is registered now (GET /webhooks), so it could not be put back');
    expect(io.stderrText()).toContain('--yes');
    expect(io.stderrText()).not.toContain('Registered');
  });

  it('a server that does not show the endpoint before, asked on a terminal: n registers nothing, y registers', async () => {
    const get: [number, unknown] = [404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } }];
    const post = (url: string): [number, unknown] => [200, { id: 'wh_1', url, secret: 'whsec_loopback_0123456789abcdef' }];
    const declined = await serverAnswering(get, post);
    const no = testIO({ env: declined.env, stdinTTY: true, tty: true, stdin: 'n\n' });
    expect(await run(['listen', '--register', '--port', '0'], no)).not.toBe(0);
    expect(declined.posts).toHaveLength(0);
    expect(no.stderrText()).toContain('cannot be put back when this listener stops');
    expect(no.stderrText()).toContain('nothing was registered');

    const agreed = await serverAnswering(get, post);
    const yes = testIO({ env: agreed.env, stdinTTY: true, tty: true, stdin: 'y\n' });
    const done = run(['listen', '--register', '--port', '0'], yes);
    closers.push(async () => {
      yes.interrupt();
      await done;
    });
    await until(() => yes.stderrText().includes('Ready!') || /Error/.test(yes.stderrText()), 'the listener', 10_000);
    expect(agreed.posts).toHaveLength(1);
    expect(yes.stderrText()).toContain('Registered');
  });
});
