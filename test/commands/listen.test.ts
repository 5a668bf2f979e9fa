import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { testIO, type TestIO } from '../helpers/io.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { deliver, documentDelivered, hmac, nowSeconds, orderEvent, SECRET, signedHeaders, voucherEvent } from '../listener/deliveries.js';
import { until } from '../helpers/until.js';

interface Running {
  io: TestIO;
  url: string;
  configDir: string;
  done: Promise<number>;
  stop(): Promise<number>;
}

async function listen(args: string[], options: { tty?: boolean; env?: Record<string, string> } = {}): Promise<Running> {
  const configDir = tempConfigDir();
  const io = testIO({ tty: options.tty, env: { VOUCHERS_CONFIG_DIR: configDir, ...options.env } });
  const done = run(['listen', '--port', '0', ...args], io);
  let exited: number | undefined;
  void done.then((c) => {
    exited = c;
  });
  await until(() => /Ready! Listening on (http:\/\/[^\s"]+)/.test(io.stderrText()) || exited !== undefined);
  const match = /Ready! Listening on (http:\/\/[^\s"]+)/.exec(io.stderrText());
  if (!match) throw new Error(`listen did not start: ${io.stderrText()}`);
  return {
    io,
    url: match[1]!,
    configDir,
    done,
    stop: async () => {
      io.interrupt();
      return done;
    },
  };
}

describe('vouchers listen', () => {
  it('--events with a slipped type: kept, with a note naming the type it likely means', async () => {
    const l = await listen(['--secret', SECRET, '--events', 'order.deliverd,voucher.*']);
    expect(await l.stop()).toBe(0);
    expect(l.io.stderrText()).toContain(
      'Note: --events "order.deliverd" (did you mean order.delivered?): not an event type this version knows',
    );
  });

  it('prints Ready on stderr, one line per event on stdout, and stops cleanly with exit 0', async () => {
    const l = await listen(['--secret', SECRET]);
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    expect((await deliver(l.url, orderEvent(1))).status).toBe(200);
    await until(() => l.io.stdoutText().includes('order.created'));
    const line = l.io.stdoutText().trim();
    expect(line).toMatch(/^\d\d:\d\d:\d\d {2}order\.created +evt_\S+ {2}ord_\S+ {2}PENDING$/);
    expect(await l.stop()).toBe(0);
    expect(l.io.stderrText()).toMatch(/Stopped\. 1 new event stored this session/);
    const inbox = join(l.configDir, 'events.ndjson');
    expect(readFileSync(inbox, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(statSync(inbox).mode & 0o777).toBe(0o600);
  });

  it('the events counted at start and at stop are event ids; another body of an event is said apart', async () => {
    const l = await listen(['--secret', SECRET]);
    expect(l.io.stderrText()).toContain('(0 events stored)');
    const other = { ...orderEvent(5), created_at: '2026-11-22T09:31:00Z' };
    for (const body of [orderEvent(5), other, orderEvent(6)]) expect((await deliver(l.url, body)).status).toBe(200);
    expect(await l.stop()).toBe(0);
    expect(l.io.stderrText()).toContain('Stopped. 2 new events stored this session, and 1 other body of events stored before.\n');
    const again = run(['listen', '--port', '0', '--secret', SECRET], l.io);
    await until(() => /\(2 events stored\)/.test(l.io.stderrText()));
    l.io.interrupt();
    expect(await again).toBe(0);
  });

  it('an inbox removed while it listens: says so, and stores the next events in a new file at the path (none acknowledged into the removed one)', async () => {
    const l = await listen(['--secret', SECRET]);
    const inbox = join(l.configDir, 'events.ndjson');
    expect((await deliver(l.url, orderEvent(31))).status).toBe(200);
    rmSync(inbox);
    expect((await deliver(l.url, orderEvent(32))).status).toBe(200);
    // The first event's file is gone: delivered again, it is stored again, not a duplicate.
    const again = await deliver(l.url, orderEvent(31));
    expect([again.status, again.json]).toEqual([200, { received: true }]);
    expect(await l.stop()).toBe(0);
    expect(l.io.stderrText()).toContain(
      `Warning: the inbox ${inbox} was removed while listening; events are now stored in a new file at that path.`,
    );
    expect(
      readFileSync(inbox, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { envelope: { event_id: string } }).envelope.event_id),
    ).toEqual([orderEvent(32).event_id, orderEvent(31).event_id]);
  });

  it('an inbox with lines that are not stored events: says how many are skipped, and leaves them in the file', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'kept.ndjson');
    const stored = JSON.stringify({ received_at: '2026-11-22T08:00:00.000Z', envelope: orderEvent(1), meta: {} });
    const content = `${stored}\nnot an event\n{"half":\n${stored.replace('order.created', 'order.processing')}\n`;
    writeFileSync(file, content, { mode: 0o600 });
    const l = await listen(['--secret', SECRET, '--inbox', file]);
    expect(await l.stop()).toBe(0);
    expect(l.io.stderrText()).toMatch(
      /Warning: the inbox \S*kept\.ndjson has 2 lines that are not a stored event .*they are left in the file as they are, and skipped/,
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('stopping: names each event stored but never forwarded (gave up, or stopped mid-retry), with the replay command', async () => {
    const app = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end());
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`;
    try {
      const inbox = join(tempConfigDir(), 'events.ndjson');
      // One forward attempt and no retry: it gives up at once.
      const l = await listen(['--secret', SECRET, '--forward-to', appUrl, '--forward-retries', '0', '--inbox', inbox]);
      expect((await deliver(l.url, orderEvent(51))).status).toBe(200);
      expect((await deliver(l.url, orderEvent(52))).status).toBe(200);
      await until(() => (l.io.stdoutText().match(/not retried/g) ?? []).length === 2);
      // Event 51 again with other content: its second body is forwarded, and replayed, on its own.
      const changed = { ...orderEvent(51), data: { ...(orderEvent(51).data as Record<string, unknown>), status: 'DELIVERED' } };
      expect((await deliver(l.url, changed)).json).toEqual({ received: true });
      await until(() => (l.io.stdoutText().match(/not retried/g) ?? []).length === 3);
      expect(await l.stop()).toBe(0);
      const id = (n: number) => String(orderEvent(n).event_id);
      expect(l.io.stderrText()).toContain(
        'Not forwarded: 3 events were stored and acknowledged but never reached the app (forwarding gave up, or stopped with the listener); ' +
          `the sender will not deliver them again. Forward by hand:\n  vouchers events replay ${id(51)} --forward-to ${appUrl} --inbox ${inbox}\n` +
          `  vouchers events replay ${id(52)} --forward-to ${appUrl} --inbox ${inbox}\n` +
          `  vouchers events replay ${id(51)} --forward-to ${appUrl} --inbox ${inbox} --body 2\n` +
          `or every one of them, one after the other:\n  vouchers events replay --not-forwarded --forward-to ${appUrl} --inbox ${inbox}\n`,
      );

      // The app still failing: each is tried, the failure counted, exit 7 (5xx).
      // events replay … --forward-to URL, on this inbox, with the secret.
      const replay = (url: string, ...args: string[]) =>
        runCli(['events', 'replay', ...args, '--forward-to', url, '--inbox', inbox, '--secret', SECRET]);
      const failing = await replay(appUrl, '--not-forwarded');
      expect(failing.code, failing.stderr).toBe(7);
      expect(failing.stderr).toContain(`3 of 3 events were not delivered to ${appUrl}`);
      // Without --forward-to: where the forward log shows they went last, said first.
      const remembered = await runCli(['events', 'replay', '--not-forwarded', '--inbox', inbox, '--secret', SECRET]);
      expect(remembered.code, remembered.stderr).toBe(7);
      expect(remembered.stderr).toContain(`Forwarding to ${appUrl}, where they were last forwarded (--forward-to URL picks another)`);
      expect(remembered.stderr).toContain(`3 of 3 events were not delivered to ${appUrl}`);
      const unknown = await runCli(['events', 'replay', 'evt_never_forwarded', '--inbox', inbox, '--secret', SECRET]);
      expect(unknown.code, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain('--forward-to URL is needed: no forward of evt_never_forwarded is recorded');
      // Ctrl-C during the first replay: the rest are not sent, and nothing claims they were.
      const stopping = testIO({ env: { VOUCHERS_CONFIG_DIR: l.configDir } });
      const stopper = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          stopping.interrupt();
          res.writeHead(500).end();
        });
      });
      await new Promise<void>((r) => stopper.listen(0, '127.0.0.1', r));
      try {
        const stopperUrl = `http://127.0.0.1:${(stopper.address() as AddressInfo).port}/hook`;
        const code = await run(
          ['events', 'replay', '--not-forwarded', '--forward-to', stopperUrl, '--inbox', inbox, '--secret', SECRET],
          stopping,
        );
        expect(code, stopping.stderrText()).toBe(130);
        expect(stopping.stderrText()).toContain('interrupted after 1 of 3 replays (0 delivered)');
        expect(stopping.stderrText()).not.toContain('Replayed');
      } finally {
        await new Promise((r) => stopper.close(r));
      }
      // The app fixed: all three bodies go, the second body of event 51 as its own.
      const got: string[] = [];
      const fixed = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          got.push(body);
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => fixed.listen(0, '127.0.0.1', r));
      const fixedUrl = `http://127.0.0.1:${(fixed.address() as AddressInfo).port}/hook`;
      try {
        const replayed = await replay(fixedUrl, '--not-forwarded');
        expect(replayed.code, replayed.stderr).toBe(0);
        expect(replayed.stderr).toContain('Replayed 3 events: each answered 2xx.');
        expect(got.map((b) => (JSON.parse(b) as { event_id: string }).event_id).sort()).toEqual([id(51), id(51), id(52)].sort());
        expect(got.some((b) => b.includes('"DELIVERED"'))).toBe(true);
        // Delivered now: nothing is left to replay.
        const again = await replay(fixedUrl, '--not-forwarded');
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('nothing to replay');
        expect(got).toHaveLength(3);
        // Several ids at once; ids and --not-forwarded together, or --body with several, are refused.
        const two = await replay(fixedUrl, id(51), id(52), '--json');
        expect(two.code, two.stderr).toBe(0);
        expect((JSON.parse(two.stdout) as { event_id: string; delivered: boolean }[]).map((r) => [r.event_id, r.delivered])).toEqual([
          [id(51), true],
          [id(52), true],
        ]);
        const both = await runCli(['events', 'replay', id(51), '--not-forwarded', '--forward-to', fixedUrl, '--inbox', inbox]);
        expect(both.code).toBe(2);
        const bodies = await runCli(['events', 'replay', id(51), id(52), '--body', '2', '--forward-to', fixedUrl, '--inbox', inbox]);
        expect(bodies.code).toBe(2);
        expect((await runCli(['events', 'replay', '--forward-to', fixedUrl, '--inbox', inbox])).code).toBe(2);
      } finally {
        await new Promise((r) => fixed.close(r));
      }
    } finally {
      await new Promise((r) => app.close(r));
    }
  });

  it('colours the event line on a TTY only', async () => {
    const l = await listen(['--secret', SECRET], { tty: true });
    await deliver(l.url, orderEvent(12, 'order.processing', 'PROCESSING'));
    await until(() => l.io.stdoutText().includes('order.processing'));
    await l.stop();
    expect(l.io.stdoutText()).toContain('\u001b[');
    expect(l.io.stdoutText()).toContain('PROCESSING');
  });

  it('--forward-to with credentials in the URL: the password and a token in the query are not printed', async () => {
    const appUrl = 'http://admin:S3cretPass@127.0.0.1:9/hook?token=tok_SECRET123&tenant=acme';
    const l = await listen(['--secret', SECRET, '--forward-to', appUrl, '--forward-retries', '0']);
    await l.stop();
    const said = l.io.stderrText() + l.io.stdoutText();
    expect(said).toContain('Forwarding to http://admin:***@127.0.0.1:9/hook?token=***&tenant=acme');
    expect(said).not.toContain('S3cretPass');
    expect(said).not.toContain('tok_SECRET123');
  });

  it('--forward-to with credentials in the URL: the replay commands for every event, at start and at stop, leave the URL out', async () => {
    const appUrl = 'http://admin:S3cretPass@127.0.0.1:9/hook?token=tok_SECRET123';
    const inbox = join(tempConfigDir(), 'events.ndjson');
    // Stored while not forwarding: the next listener forwarding on this inbox counts it, with the command that sends it.
    const first = await listen(['--secret', SECRET, '--inbox', inbox]);
    expect((await deliver(first.url, orderEvent(71))).status).toBe(200);
    expect(await first.stop()).toBe(0);
    const l = await listen(['--secret', SECRET, '--inbox', inbox, '--forward-to', appUrl, '--forward-retries', '0']);
    expect(l.io.stderrText()).toContain(`Inbox: 1 stored event has never reached the app`);
    // Two that do not reach the app (nothing listens on port 9): named when it stops, with a command for every one.
    expect((await deliver(l.url, orderEvent(72))).status).toBe(200);
    expect((await deliver(l.url, orderEvent(73))).status).toBe(200);
    await until(() => (l.io.stdoutText().match(/→ /g) ?? []).length >= 2);
    expect(await l.stop()).toBe(0);
    const said = l.io.stderrText() + l.io.stdoutText();
    expect(said).toContain('Not forwarded: 2 events were stored and acknowledged but never reached the app');
    expect(said.match(/vouchers events replay --not-forwarded --inbox \S+\n/g)).toHaveLength(2);
    expect(said).not.toContain('S3cretPass');
    expect(said).not.toContain('tok_SECRET123');
  });

  it('--forward-to: the first forward result shares the event line; the app gets the original delivery', async () => {
    const received: string[] = [];
    const appServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(body);
        res.writeHead(received.length === 1 ? 204 : 500).end();
      });
    });
    await new Promise<void>((r) => appServer.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/hook`;
    try {
      const l = await listen(['--secret', SECRET, '--forward-to', appUrl, '--forward-retries', '0']);
      expect(l.io.stderrText()).toContain(`Forwarding to ${appUrl}`);
      await deliver(l.url, orderEvent(13));
      await until(() => l.io.stdoutText().includes('→ 204'));
      await deliver(l.url, orderEvent(14));
      await until(() => l.io.stdoutText().includes('→ 500'));
      await l.stop();
      const lines = l.io.stdoutText().trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/order\.created +evt_\S+ {2}ord_\S+ {2}PENDING {2}→ 204 in \d+ ms$/);
      expect(lines[1]).toMatch(/PENDING {2}→ 500 in \d+ ms, not retried$/);
      expect(received[0]).toBe(JSON.stringify(orderEvent(13)));
      const log = readFileSync(join(l.configDir, 'events.forwards.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x));
      expect(log.map((r) => [r.status, r.outcome])).toEqual([
        [204, 'delivered'],
        [500, 'failed'],
      ]);
    } finally {
      await new Promise((r) => appServer.close(r));
    }
  });

  it('a forward log that cannot be written while listening: says so once, and the events still count as not forwarded', async () => {
    const appServer = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => appServer.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/hook`;
    try {
      const l = await listen(['--secret', SECRET, '--forward-to', appUrl, '--forward-retries', '0']);
      // A folder where the forward log belongs, made after the listener read it.
      mkdirSync(join(l.configDir, 'events.forwards.ndjson'));
      await deliver(l.url, orderEvent(15));
      await until(() => l.io.stdoutText().includes('→ 204'));
      await deliver(l.url, orderEvent(16));
      await until(() => l.io.stdoutText().split('→ 204').length === 3);
      await l.stop();
      const warnings = l.io.stderrText().match(/Warning: cannot write the forward log \S*events\.forwards\.ndjson \(EISDIR\)/g);
      expect(warnings).toHaveLength(1);
      expect(l.io.stderrText()).toMatch(/a later listener or events replay --not-forwarded sends them again/);
    } finally {
      await new Promise((r) => appServer.close(r));
    }
  });

  it('prints NDJSON per event with --json, and rejections as objects too', async () => {
    const l = await listen(['--secret', SECRET, '--json']);
    await deliver(l.url, voucherEvent(2));
    await deliver(l.url, voucherEvent(2));
    await deliver(l.url, orderEvent(3), ['whsec_wrong']);
    await until(() => l.io.stdoutText().trim().split('\n').length === 3);
    await l.stop();
    const lines = l.io
      .stdoutText()
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(lines[0]).toMatchObject({
      kind: 'event',
      event: 'voucher.issued',
      event_id: voucherEvent(2).event_id,
      order_id: (voucherEvent(2).data as { order_id: string }).order_id,
    });
    expect(lines[0].envelope).toEqual(voucherEvent(2));
    expect(lines[1]).toMatchObject({ kind: 'duplicate', event_id: voucherEvent(2).event_id });
    expect(lines[2]).toMatchObject({ kind: 'rejected', status: 401, code: 'INVALID_SIGNATURE', path: '/webhooks' });
  });

  it('--jmespath runs on each NDJSON line, and a null result leaves the line out (implies --json)', async () => {
    const l = await listen(['--secret', SECRET, '--jmespath', "kind=='event' && event_id || null"]);
    await deliver(l.url, voucherEvent(4));
    await deliver(l.url, voucherEvent(4));
    await deliver(l.url, orderEvent(5), ['whsec_wrong']);
    await deliver(l.url, orderEvent(6));
    await until(() => l.io.stdoutText().includes(String(orderEvent(6).event_id)));
    await l.stop();
    expect(l.io.stdoutText()).toBe(`${voucherEvent(4).event_id}\n${orderEvent(6).event_id}\n`);
  });

  it("the warning's details command names the listener's --inbox, quoted, so it pastes as it is", async () => {
    const inbox = join(tempConfigDir(), 'my events.ndjson');
    const l = await listen(['--secret', SECRET, '--inbox', inbox]);
    const event = { ...orderEvent(41), event: 'order.expired' };
    expect((await deliver(l.url, event)).status).toBe(200);
    await until(() => l.io.stderrText().includes('details:'));
    await l.stop();
    expect(l.io.stderrText()).toContain(`details: vouchers events show ${String(orderEvent(41).event_id)} --inbox '${inbox}'`);
  });

  it('shows an event of an unknown type with a marker, warns once per type on stderr, and forwards it', async () => {
    const received: string[] = [];
    const appServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => appServer.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/hook`;
    const newer = (n: number) => ({
      event: 'order.expired',
      event_id: orderEvent(n).event_id,
      created_at: '2026-11-22T09:30:00Z',
      data: { order_id: (orderEvent(n).data as { order_id: string }).order_id, status: 'EXPIRED' },
    });
    try {
      const l = await listen(['--secret', SECRET, '--forward-to', appUrl]);
      expect((await deliver(l.url, newer(15))).status).toBe(200);
      expect((await deliver(l.url, newer(16))).status).toBe(200);
      await until(() => received.length === 2 && (l.io.stdoutText().match(/→ 200/g) ?? []).length === 2);
      await l.stop();
      const lines = l.io.stdoutText().trim().split('\n');
      expect(lines[0]).toMatch(/order\.expired +evt_\S+ {2}ord_\S+ {2}EXPIRED {2}\(unknown event type\) {2}→ 200 in \d+ ms$/);
      const warnings =
        l.io.stderrText().match(/^Warning: evt_\S+ \(order\.expired\) is of a type this version of vouchers does not know.*$/gm) ?? [];
      // The second event of the same type is marked on its line, not warned about again.
      expect(warnings.map((w) => w.split(' ')[1])).toEqual([newer(15).event_id]);
      expect(warnings[0]).toMatch(
        /accepted and stored as received, and is forwarded unchanged.*later order\.expired events that differ the same way are only marked/,
      );
      expect(lines[1]).toMatch(/\(unknown event type\)/);
      expect(received[0]).toBe(JSON.stringify(newer(15)));
    } finally {
      await new Promise((r) => appServer.close(r));
    }
    const j = await listen(['--secret', SECRET, '--json']);
    await deliver(j.url, newer(17));
    await deliver(j.url, orderEvent(18));
    await until(() => j.io.stdoutText().trim().split('\n').length === 2);
    await j.stop();
    const objs = j.io
      .stdoutText()
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(objs.map((o) => [o.event, o.unknown_event_type])).toEqual([
      ['order.expired', true],
      ['order.created', false],
    ]);
  });

  it("acknowledges the document's order.delivered as the real service sends it: marked, warned, forwarded byte for byte, listed, shown and replayed", async () => {
    const received: { body: string; signature: string | undefined }[] = [];
    const appServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-webhook-signature'] as string | undefined });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => appServer.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/hook`;
    const ev = documentDelivered(30);
    const id = ev.event_id as string;
    // Sent as a service may format it: spaced, with 25.00, which re-serialising would change.
    const body = JSON.stringify(ev, null, 1).replace('"total_amount": 25', '"total_amount": 25.00');
    try {
      const l = await listen(['--secret', SECRET, '--forward-to', appUrl]);
      const headers = signedHeaders(body, [SECRET], Math.floor(Date.now() / 1000), id);
      const answer = await new Promise<number>((resolve, reject) => {
        const req = request(
          l.url,
          { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(answer).toBe(200);
      await until(() => received.length === 1 && l.io.stdoutText().includes('→ 200'));
      expect(await l.stop()).toBe(0);
      expect(l.io.stdoutText().trim()).toMatch(
        new RegExp(`order\\.delivered +${id}  ord_981234  DELIVERED  \\(differs from contract\\)  → 200 in \\d+ ms$`),
      );
      expect(l.io.stderrText()).toContain(
        `Warning: ${id} (order.delivered) differs from the contract: data.reference: missing. It was accepted and stored as received, and is forwarded unchanged`,
      );
      // Forwarded unchanged: the same bytes, signed as the sender signs them, which the app can
      // verify. Each attempt is signed anew (forward.ts), so its timestamp is the second it left:
      // the one the delivery was signed at, or a later one when that second ended in between.
      expect(received[0]!.body).toBe(body);
      const sentAt = Number(/^t=(\d+),/.exec(headers['x-webhook-signature']!)?.[1]);
      const forwardedAt = Number(/^t=(\d+),/.exec(received[0]!.signature ?? '')?.[1]);
      expect(forwardedAt - sentAt).toBeGreaterThanOrEqual(0);
      expect(forwardedAt - sentAt).toBeLessThan(60);
      expect(received[0]!.signature).toBe(signedHeaders(body, [SECRET], forwardedAt, id)['x-webhook-signature']);

      const listed = await runCli(['events', 'list'], { configDir: l.configDir });
      expect(listed.stdout.trim().split('\t')).toEqual([
        expect.any(String),
        'order.delivered',
        id,
        'ord_981234',
        'DELIVERED',
        'differs: data.reference',
        'yes', // FORWARDED: the app answered 2xx
      ]);
      const listedJson = await runCli(['events', 'list', '--json'], { configDir: l.configDir });
      expect(JSON.parse(listedJson.stdout)[0]).toMatchObject({ event_id: id, unknown_type: false, drift: ['data.reference: missing'] });
      const shown = await runCli(['events', 'show', id], { configDir: l.configDir });
      expect(shown.stdout).toMatch(/^drift\tdiffers from the contract, stored as received: data\.reference: missing$/m);
      const shownJson = JSON.parse((await runCli(['events', 'show', id, '--json'], { configDir: l.configDir })).stdout);
      expect(shownJson.meta.drift).toEqual(['data.reference: missing']);
      expect(shownJson.raw_body).toBeUndefined();

      const replayed = await runCli(['events', 'replay', id, '--forward-to', appUrl, '--secret', SECRET], { configDir: l.configDir });
      expect(replayed.code).toBe(0);
      expect(received[1]!.body).toBe(body);
    } finally {
      await new Promise((r) => appServer.close(r));
    }
  });

  it('never prints a voucher code a sender wrongly put in a payload: listen, events list and show', async () => {
    const leaky: Record<string, unknown> = {
      ...orderEvent(22),
      data: { ...(orderEvent(22).data as object), vouchers: [{ product_id: 'sbx-instant', code: 'LEAK-CODE-1234', pin: 'LEAK-PIN-42' }] },
    };
    const l = await listen(['--secret', SECRET, '--json']);
    expect((await deliver(l.url, leaky)).status).toBe(200);
    await until(() => l.io.stdoutText().includes('order.created'));
    await l.stop();
    expect(l.io.stdoutText()).not.toMatch(/LEAK-CODE-1234|LEAK-PIN-42/);
    expect(JSON.parse(l.io.stdoutText()).envelope.data.vouchers[0]).toEqual({
      product_id: 'sbx-instant',
      code: '[redacted]',
      pin: '[redacted]',
    });
    expect(l.io.stderrText()).toMatch(/carries voucher code fields \(data\.vouchers\.0\.code, data\.vouchers\.0\.pin\)/);
    const id = leaky.event_id as string;
    for (const args of [
      ['events', 'show', id],
      ['events', 'show', id, '--json'],
      ['events', 'list', '--json'],
      ['events', 'list', '--output', 'ndjson'],
    ]) {
      const r = await runCli(args, { configDir: l.configDir });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toContain('[redacted]');
      expect(r.stdout, args.join(' ')).not.toMatch(/LEAK-CODE-1234|LEAK-PIN-42/);
    }
  });

  it('--events filters what is shown; everything valid is stored', async () => {
    const l = await listen(['--secret', SECRET, '--events', 'voucher.*', '--json']);
    await deliver(l.url, orderEvent(4));
    await deliver(l.url, voucherEvent(5));
    await until(() => l.io.stdoutText().includes('voucher.issued'));
    await l.stop();
    expect(
      l.io
        .stdoutText()
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x).event),
    ).toEqual(['voucher.issued']);
    expect(readFileSync(join(l.configDir, 'events.ndjson'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('prints rejections on stderr without colour when not a TTY, and keeps running', async () => {
    const l = await listen(['--secret', SECRET]);
    await deliver(l.url, orderEvent(6), [SECRET], Math.floor(Date.now() / 1000) - 1_000);
    expect((await deliver(l.url, orderEvent(7))).status).toBe(200);
    await l.stop();
    // Named by the delivery's X-Webhook-Id, for the sender's logs.
    expect(l.io.stderrText()).toMatch(
      new RegExp(
        `rejected 401 TIMESTAMP_OUT_OF_WINDOW {2}POST /webhooks \\(${String(orderEvent(6).event_id)}\\): webhook timestamp \\d+ \\(.*?\\) is \\d+ s( \\(.*?\\))? old`,
      ),
    );
    expect(l.io.stderrText()).not.toContain('\u001b[');
  });

  it('takes the secret from VOUCHERS_WEBHOOK_SECRET and never prints it', async () => {
    const l = await listen([], { env: { VOUCHERS_WEBHOOK_SECRET: SECRET } });
    expect((await deliver(l.url, orderEvent(8))).status).toBe(200);
    await l.stop();
    expect(l.io.stdoutText() + l.io.stderrText()).not.toContain(SECRET);
  });

  it('finishes a delivery in flight when interrupted, then exits 0', async () => {
    const l = await listen(['--secret', SECRET]);
    const ev = orderEvent(9);
    const body = Buffer.from(JSON.stringify(ev));
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        l.url,
        { method: 'POST', agent: false, headers: { ...signedHeaders(body), 'content-length': String(body.length) } },
        (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 20));
      setTimeout(() => {
        l.io.interrupt(); // Ctrl-C while the body is half sent
        setTimeout(() => req.end(body.subarray(20)), 50);
      }, 20);
    });
    const res = await answer;
    expect(res).toEqual({ status: 200, body: '{"received":true}' });
    expect(await l.done).toBe(0);
    expect(readFileSync(join(l.configDir, 'events.ndjson'), 'utf8')).toContain(ev.event_id as string);
  });

  it('--tolerance above 300 says on start how far it widens the 5 minutes of the API document, and takes deliveries that old', async () => {
    const wide = await listen(['--secret', SECRET, '--tolerance', '3600']);
    expect(wide.io.stderrText().replace(/\s+/g, ' ')).toContain(
      "Note: --tolerance 3600 accepts deliveries signed up to 1h before or after this machine's clock, wider than the 5 minutes the API document allows a signed request",
    );
    expect((await deliver(wide.url, orderEvent(1), [SECRET], nowSeconds() - 1800)).status).toBe(200);
    expect((await deliver(wide.url, orderEvent(2), [SECRET], nowSeconds() - 3700)).status).toBe(401);
    expect(await wide.stop()).toBe(0);
    const usual = await listen(['--secret', SECRET]);
    expect((await deliver(usual.url, orderEvent(1), [SECRET], nowSeconds() - 1800)).status).toBe(401);
    expect(await usual.stop()).toBe(0);
    expect(usual.io.stderrText()).not.toContain('--tolerance');
  });

  it('without a secret from any source: usage error (exit 2) saying how to get one', async () => {
    const r = await runCli(['listen', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no webhook signing secret/);
    expect(r.stderr).toMatch(/--secret whsec_…, set VOUCHERS_WEBHOOK_SECRET, or run vouchers listen --register/);
  });

  it('rejects bad flags with usage errors', async () => {
    expect((await runCli(['listen', '--secret', SECRET, '--events', 'orders.*'])).stderr).toMatch(/matches no event type/);
    expect((await runCli(['listen', '--secret', SECRET, '--port', 'abc'])).code).toBe(2);
    expect((await runCli(['listen', '--secret', SECRET, '--forward-to', 'ftp://x'])).stderr).toMatch(/http or https/);
    expect((await runCli(['listen', '--secret', SECRET, '--forward-header', 'nocolon'])).stderr).toMatch(/not "Name: value"/);
    expect((await runCli(['listen', '--secret', SECRET, '--public-url', 'https://x.example'])).stderr).toMatch(
      /only makes sense with --register/,
    );
  });

  it('says it cannot open an inbox that cannot be made, also under /proc (where it used to hang), with exit 2', async () => {
    const blocker = join(tempConfigDir(), 'a-file');
    writeFileSync(blocker, 'x');
    const underFile = await runCli(['listen', '--port', '0', '--secret', SECRET, '--inbox', join(blocker, 'events.ndjson')]);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toMatch(/cannot open the inbox .*ENOTDIR/);
    expect(underFile.stderr).toMatch(/choose another file with --inbox/);
    if (existsSync('/proc/self')) {
      const underProc = await runCli(['listen', '--port', '0', '--secret', SECRET, '--inbox', '/proc/vouchers-nope/events.ndjson']);
      expect(underProc.code).toBe(2);
      expect(underProc.stderr).toMatch(/cannot open the inbox \/proc\/vouchers-nope\/events\.ndjson: ENOENT/);
    }
  });

  it('refuses a second listener on the same inbox, naming the first; the inbox is free again once it stops', async () => {
    const inbox = join(tempConfigDir(), 'shared.ndjson');
    const first = await listen(['--secret', SECRET, '--inbox', inbox]);
    const second = await runCli(['listen', '--port', '0', '--secret', SECRET, '--inbox', inbox]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`the inbox ${inbox} is in use by vouchers listen on ${first.url}`);
    expect(second.stderr).toMatch(/--inbox/);
    expect((await deliver(first.url, orderEvent(19))).status).toBe(200);
    expect(await first.stop()).toBe(0);
    const third = await listen(['--secret', SECRET, '--inbox', inbox]);
    expect(third.io.stderrText()).toMatch(/\(1 event stored\)/);
    expect(await third.stop()).toBe(0);
  });

  it('says which port is taken', async () => {
    const l = await listen(['--secret', SECRET]);
    const port = new URL(l.url).port;
    const r = await runCli(['listen', '--secret', SECRET, '--port', port]);
    await l.stop();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
  });

  it('--register refuses a remote API without --public-url', async () => {
    const r = await runCli(['listen', '--register', '--port', '0'], {
      env: { VOUCHERS_BASE_URL: 'https://api.example.com/api/v1', VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach a listener on this machine/);
    expect(r.stderr).toMatch(/--public-url/);
  });

  it('has --help with examples', async () => {
    const r = await runCli(['listen', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\$ vouchers listen --forward-to http:\/\/localhost:3000\/webhooks/);
  });
});

describe('vouchers listen --print-secret', () => {
  const WHSEC = 'whsec_printme0123456789abcdef';

  it("prints the profile's webhook secret alone on stdout (for $(…)), and nothing else", async () => {
    const dir = tempConfigDir();
    const add = await runCli(
      ['profiles', 'add', 'p', '--base-url', 'http://127.0.0.1:4010/api/v1', '--api-key', 'pk_print_1234567890', '--api-secret-stdin'],
      {
        configDir: dir,
        stdin: 'sk_print_secret_1234567890\n',
      },
    );
    expect(add.code, add.stderr).toBe(0);
    const set = await runCli(['profiles', 'set', 'p', 'webhook_secret', '--stdin'], { configDir: dir, stdin: `${WHSEC}\n` });
    expect(set.code, set.stderr).toBe(0);
    const r = await runCli(['listen', '--print-secret'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${WHSEC}\n`);
    expect(r.stderr).toBe('');
    const json = await runCli(['listen', '--print-secret', '--json'], { configDir: dir });
    expect(JSON.parse(json.stdout)).toEqual({ webhook_secret: WHSEC });
    // The environment overrides the profile, as for the listener itself.
    const env = await runCli(['listen', '--print-secret'], {
      configDir: dir,
      env: { VOUCHERS_WEBHOOK_SECRET: 'whsec_fromenv_0123456789' },
    });
    expect(env.stdout).toBe('whsec_fromenv_0123456789\n');
  });

  it('without a secret anywhere: exit 2 naming where one comes from; with --register: refused', async () => {
    const none = await runCli(['listen', '--print-secret'], { env: { VOUCHERS_WEBHOOK_SECRET: '' } });
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    const both = await runCli(['listen', '--print-secret', '--register']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--print-secret prints the saved secret and exits; it does not register');
  });
});

describe('vouchers listen with the secret of a profile that changes while it runs', () => {
  const OLD = 'whsec_before_rotation_0123456789';
  const NEW = 'whsec_after_rotation_0123456789';

  async function profileWith(secret: string): Promise<string> {
    const dir = tempConfigDir();
    const add = await runCli(
      [
        'profiles',
        'add',
        'p',
        '--use',
        '--base-url',
        'http://127.0.0.1:9/api/v1',
        '--api-key',
        'pk_rotate_1234567890',
        '--api-secret-stdin',
      ],
      { configDir: dir, stdin: 'sk_rotate_secret_1234567890\n' },
    );
    expect(add.code, add.stderr).toBe(0);
    const set = await runCli(['profiles', 'set', 'p', 'webhook_secret', '--stdin'], { configDir: dir, stdin: `${secret}\n` });
    expect(set.code, set.stderr).toBe(0);
    return dir;
  }

  it('a delivery signed with the secret saved in the profile since (rotated, or registered again) is accepted, and the old one still is', async () => {
    const dir = await profileWith(OLD);
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir } });
    const done = run(['listen', '--port', '0'], io);
    try {
      await until(() => /Ready! Listening on (http:\/\/\S+)/.test(io.stderrText()) || /Error/.test(io.stderrText()));
      const url = /Ready! Listening on (http:\/\/\S+)/.exec(io.stderrText())![1]!;
      expect((await deliver(url, orderEvent(1), [OLD])).status).toBe(200);
      // As webhooks register saves a new secret (--rotate-secret, or an endpoint created again).
      const set = await runCli(['profiles', 'set', 'p', 'webhook_secret', '--stdin'], { configDir: dir, stdin: `${NEW}\n` });
      expect(set.code, set.stderr).toBe(0);
      const fresh = await deliver(url, orderEvent(2), [NEW]);
      expect(fresh.status, JSON.stringify(fresh.json)).toBe(200);
      expect(io.stderrText()).toContain(
        'A delivery was signed with the webhook signing secret now saved in profile "p" (the endpoint\'s secret was rotated, or the endpoint registered again, since this listener started): verifying with it too.',
      );
      // During the rotation window the sender signs with both; the old one alone still verifies.
      expect((await deliver(url, orderEvent(3), [OLD])).status).toBe(200);
      const other = await deliver(url, orderEvent(4), ['whsec_someone_else_0123456789']);
      expect(other.status).toBe(401);
      expect(io.stderrText()).not.toContain(NEW);
      expect(io.stderrText()).not.toContain(OLD);
    } finally {
      io.interrupt();
      expect(await done).toBe(0);
    }
  });

  it('a delivery signed with both during a rotation: the forward to the app is signed with the new secret too, as listen --print-secret now prints it', async () => {
    const dir = await profileWith(OLD);
    const forwarded: { signature: string; timestamp: number; body: string }[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        forwarded.push({
          signature: String(req.headers['x-webhook-signature']),
          timestamp: Number(req.headers['x-webhook-timestamp']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`;
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir } });
    const done = run(['listen', '--port', '0', '--forward-to', appUrl], io);
    try {
      await until(() => /Ready! Listening on (http:\/\/\S+)/.test(io.stderrText()) || /Error/.test(io.stderrText()));
      const url = /Ready! Listening on (http:\/\/\S+)/.exec(io.stderrText())![1]!;
      // As webhooks register --rotate-secret saves the new secret; the sender signs with both for a while.
      const set = await runCli(['profiles', 'set', 'p', 'webhook_secret', '--stdin'], { configDir: dir, stdin: `${NEW}\n` });
      expect(set.code, set.stderr).toBe(0);
      expect((await deliver(url, orderEvent(1), [OLD, NEW])).status).toBe(200);
      await until(() => forwarded.length === 1);
      const [f] = forwarded;
      // An app verifying with the secret saved now (listen --print-secret) accepts the forward.
      expect(f!.signature).toContain(`v1=${hmac(NEW, f!.timestamp, f!.body)}`);
      expect(f!.signature).toContain(`v1=${hmac(OLD, f!.timestamp, f!.body)}`);
      const printed = await runCli(['listen', '--print-secret'], { configDir: dir });
      expect(printed.stdout).toBe(`${NEW}\n`);
      expect(io.stderrText()).not.toContain(NEW);
    } finally {
      io.interrupt();
      expect(await done).toBe(0);
      await new Promise<void>((r) => app.close(() => r()));
    }
  });

  it("a secret given with --secret is not replaced by the profile's", async () => {
    const dir = await profileWith(OLD);
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir } });
    const done = run(['listen', '--port', '0', '--secret', SECRET], io);
    try {
      await until(() => /Ready! Listening on (http:\/\/\S+)/.test(io.stderrText()) || /Error/.test(io.stderrText()));
      const url = /Ready! Listening on (http:\/\/\S+)/.exec(io.stderrText())![1]!;
      expect((await deliver(url, orderEvent(1), [OLD])).status).toBe(401);
      expect((await deliver(url, orderEvent(2), [SECRET])).status).toBe(200);
    } finally {
      io.interrupt();
      expect(await done).toBe(0);
    }
  });
});
