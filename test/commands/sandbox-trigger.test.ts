/**
 * `vouchers sandbox trigger <event-type>`: for every event type a fresh signed order makes
 * the sandbox emit that event, checked in the sandbox's own event list, and the printed
 * event ids are those events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { fastSandbox, profileDir, localProfileDir } from '../helpers/sandbox.js';
import { forwardTo, startLoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { run } from '../../src/main.js';
import { testIO, type TestIO } from '../helpers/io.js';
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

describe('vouchers sandbox trigger', () => {
  for (const type of EVENT_TYPES) {
    it(`emits ${type}`, async () => {
      const r = await runCli(['sandbox', 'trigger', type, '--json'], { configDir });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { event: string; order_id: string; event_ids: string[]; trace_id: string };
      expect(out.event).toBe(type);
      expect(out.trace_id).toMatch(/^[0-9a-f]{32}$/);
      const emitted = sb.state.events.filter((e) => e.order_id === out.order_id && e.event === type).map((e) => e.event_id);
      expect(emitted.length).toBeGreaterThan(0);
      expect(out.event_ids).toEqual(emitted);
      expect(r.stderr).toContain(`Emitted ${type}`);
      // With --json stderr is JSON lines only, as for every command.
      for (const line of r.stderr.trim().split('\n')) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    });
  }

  it('--json: the warning that the event reaches no one, and webhooks delete, are JSON notices too', async () => {
    const dir = await profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: sb.adminToken });
    const jsonLines = (stderr: string) =>
      stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
    const none = await runCli(['sandbox', 'trigger', 'order.delivered', '--json'], { configDir: dir });
    expect(none.code, none.stderr).toBe(0);
    expect(jsonLines(none.stderr).map((l) => l.notice?.code)).toEqual(['ORDERED', 'EMITTED', 'DELIVERED_NOWHERE']);
    expect(none.stderr).toContain('no webhook endpoint is registered, so the event is delivered nowhere');
    // The notice's code says it is a warning: its message has no "Warning: " of the line for people.
    for (const l of jsonLines(none.stderr)) expect(l.notice?.message).not.toMatch(/^Warning/);
    const plain = await runCli(['sandbox', 'trigger', 'order.delivered'], { configDir: dir });
    expect(plain.stderr).toMatch(/^Warning: .*no webhook endpoint is registered/m);
    expect((await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks'], { configDir: dir })).code).toBe(0);
    const deleted = await runCli(['webhooks', 'delete', '--yes', '--json'], { configDir: dir });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: true });
    expect(jsonLines(deleted.stderr)[0]!.notice).toMatchObject({ code: 'WEBHOOK_DELETED' });
  });

  it('prints a readable record when piped', async () => {
    const r = await runCli(['sandbox', 'trigger', 'order.processing'], { configDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^event\torder\.processing\nevent_ids\tevt_\w+\norder_id\tord_\w+\nproduct_id\tsbx-async\n/);
  });

  it('warns when the event reaches no one: no endpoint registered, or one not subscribed to its type (exit 0 all the same)', async () => {
    const dir = await profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: sb.adminToken });
    const none = await runCli(['sandbox', 'trigger', 'order.delivered'], { configDir: dir });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('Warning: no webhook endpoint is registered, so the event is delivered nowhere');
    expect(none.stderr).toContain('vouchers listen --register');
    // The look-up that found no endpoint is the CLI's own: not a failed request of the user's.
    const failed = await runCli(['log', '--failed', '--json'], { configDir: dir });
    expect(JSON.parse(failed.stdout)).toEqual([]);
    // Under --profile, the commands it suggests use that profile too.
    const named = await runCli(['--profile', 'local', 'sandbox', 'trigger', 'order.delivered'], { configDir: dir });
    expect(named.stderr).toContain(
      '(vouchers --profile local listen --register) or register one (vouchers --profile local webhooks register --url URL)',
    );
    const registered = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks', '--events', 'order.refunded'], {
      configDir: dir,
    });
    expect(registered.code, registered.stderr).toBe(0);
    const other = await runCli(['sandbox', 'trigger', 'order.delivered'], { configDir: dir });
    expect(other.code).toBe(0);
    expect(other.stderr).toContain(
      'Warning: the registered webhook endpoint http://127.0.0.1:9/hooks is not subscribed to order.delivered (only order.refunded), so it will not receive it; ' +
        'to receive it, register again with its events: vouchers webhooks register --url http://127.0.0.1:9/hooks --events order.refunded,order.delivered',
    );
    const subscribed = await runCli(['sandbox', 'trigger', 'order.refunded'], { configDir: dir });
    expect(subscribed.code).toBe(0);
    expect(subscribed.stderr).not.toContain('Warning');
    expect((await runCli(['webhooks', 'delete', '--yes'], { configDir: dir })).code).toBe(0);
  });

  it('warns when the endpoint was registered only after the event was emitted (a listener still starting), with the command that delivers it', async () => {
    const other = await profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: sb.adminToken });
    const sandboxOrigin = new URL(sb.adminUrl).origin;
    // The trigger's admin calls pass through this proxy: the first look at the order's events
    // (they are emitted by then) waits for a listener elsewhere to register the endpoint.
    let registered: Promise<unknown> | undefined;
    const proxy = await startLoopbackServer(async (req, res) => {
      if (req.target.startsWith('/admin/events'))
        registered ??= runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks'], { configDir: other });
      await registered;
      await forwardTo(sandboxOrigin, req, res);
    });
    try {
      const dir = await profileDir(sb, 'local', { admin_url: `${proxy.origin}/admin`, admin_token: sb.adminToken });
      const r = await runCli(['sandbox', 'trigger', 'order.delivered', '--json'], { configDir: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(((await registered) as { code: number }).code).toBe(0);
      const { event_ids } = JSON.parse(r.stdout) as { event_ids: string[] };
      expect(r.stderr).toContain(
        `the sandbox queued no delivery of order.delivered: the webhook endpoint http://127.0.0.1:9/hooks was registered after it was emitted`,
      );
      expect(r.stderr).toContain(`vouchers sandbox admin redeliver ${event_ids[0]!}`);
      // The command it names delivers it.
      const again = await runCli(['sandbox', 'admin', 'redeliver', event_ids[0]!, '--json'], { configDir: other });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ event_id: event_ids[0] });
    } finally {
      await proxy.close();
      expect((await runCli(['webhooks', 'delete', '--yes'], { configDir: other })).code).toBe(0);
    }
  });

  it('refuses an unknown event type', async () => {
    const r = await runCli(['sandbox', 'trigger', 'order.shipped'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"order.shipped" is not an event type');
    expect(r.stderr).toContain('order.partially_delivered');
  });

  it('gives up with exit 8 when the event does not come in time', async () => {
    const slow = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: 1000, quiet: true });
    try {
      const dir = await profileDir(slow, 'local', { admin_url: slow.adminUrl, admin_token: slow.adminToken });
      const r = await runCli(['sandbox', 'trigger', 'order.processing', '--max-wait', '150ms'], { configDir: dir });
      expect(r.code).toBe(8);
      expect(r.stderr).toMatch(/order\.processing was not emitted for ord_\w+ within 150ms/);
      expect(r.stderr).toContain('vouchers orders wait ord_');
    } finally {
      await slow.close();
    }
  });
});

describe('Ctrl-C while sandbox trigger waits for the event', () => {
  it('says the order is placed and how to follow it and see its events (exit 130), with the trace ID of the order', async () => {
    // Real time: the partial delivery comes after the sandbox's fulfilment delay, long after the interrupt.
    const slow = await fastSandbox({ timeScale: 100 });
    try {
      const dir = await localProfileDir(slow);
      const io: TestIO = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
      const running = run(['sandbox', 'trigger', 'order.partially_delivered'], io);
      await until(() => io.stderrText().includes('Ordered 2 × sbx-partial'), 'the order', 10_000);
      io.interrupt();
      expect(await running).toBe(130);
      await new Promise((r) => setImmediate(r));
      const orderId = /(ord_\w+) PENDING/.exec(io.stderrText())![1]!;
      const trace = /\(trace ([0-9a-f]{32})\)/.exec(io.stderrText())![1]!;
      const stderr = io.stderrText().replace(/\s+/g, ' ');
      expect(stderr).toContain(
        `stopped waiting for order.partially_delivered of ${orderId}; the order is placed, and the sandbox still emits its events`,
      );
      expect(stderr).toContain(`vouchers orders wait ${orderId}`);
      expect(stderr).toContain(`vouchers sandbox admin events list --order ${orderId}`);
      expect(stderr).toContain(`trace ID ${trace}`);
    } finally {
      await slow.close();
    }
  });
});
