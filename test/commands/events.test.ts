import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardLogPath, readForwardLog } from '../../src/core/journal/forward-log.js';
import { ANSI, unwrapped } from '../helpers/cli-text.js';
import { nearEventIds } from '../../src/commands/events/stored-body.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { hmac, orderEvent, SECRET, testId, voucherEvent } from '../listener/deliveries.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const clock = { now: () => NOW, sleep: async () => undefined };

function entry(envelope: Record<string, unknown>, receivedAt: string) {
  return {
    received_at: receivedAt,
    envelope,
    meta: { signature_timestamp: Math.floor(Date.parse(receivedAt) / 1000), webhook_id: envelope.event_id, remote_address: '127.0.0.1' },
  };
}

/** A config dir whose inbox holds four events (one torn line at the end). */
function inboxDir(): string {
  const dir = tempConfigDir();
  const lines = [
    entry(orderEvent(1), '2026-11-22T08:00:00.000Z'),
    entry(orderEvent(1, 'order.processing', 'PROCESSING'), '2026-11-22T11:10:00.000Z'),
    entry(voucherEvent(1), '2026-11-22T11:20:00.000Z'),
    entry(orderEvent(2), '2026-11-22T11:50:00.000Z'),
  ].map((e) => JSON.stringify(e));
  // order.processing of order 1 has a different event id
  lines[1] = lines[1]!.replace(testId('evt', 1), testId('evt', 11));
  lines[2] = lines[2]!.replace(`"event_id":"${testId('evt', 1)}"`, `"event_id":"${testId('evt', 21)}"`);
  writeFileSync(join(dir, 'events.ndjson'), lines.join('\n') + '\n{"received_at":"2026-11-22T11:5', { mode: 0o600 });
  return dir;
}

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s();
});

type Received = { body: string; headers: IncomingMessage['headers'] }[];

/** An app answering every delivery with `status`; `onDelivery` sees each as it comes (what came so far). */
async function app(status: number, onDelivery?: (received: Received) => void): Promise<{ url: string; received: Received }> {
  const received: Received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      onDelivery?.(received);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, received };
}

describe('vouchers events list', () => {
  it('a folder where the forward log belongs: a usage error naming it (exit 2), not an unexpected one', async () => {
    const dir = inboxDir();
    mkdirSync(join(dir, 'events.forwards.ndjson'));
    const r = await runCli(['events', 'list'], { configDir: dir, overrides: { clock } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot read the forward log ${join(dir, 'events.forwards.ndjson')} (EISDIR: it is a folder)`);
    expect(r.stderr).not.toContain('Unexpected error');
  });

  it('lists stored events newest first as TSV when piped, skipping a torn line', async () => {
    const r = await runCli(['events', 'list'], { configDir: inboxDir(), overrides: { clock } });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((x) => x[1])).toEqual(['order.created', 'voucher.issued', 'order.processing', 'order.created']);
    expect(rows[0]).toEqual(['2026-11-22 11:50:00Z', 'order.created', testId('evt', 2), testId('ord', 2), 'PENDING', '']);
  });

  it('filters by --type glob, --order and --since, and honours --limit', async () => {
    const dir = inboxDir();
    const byType = await runCli(['events', 'list', '--type', 'order.*', '--json'], { configDir: dir, overrides: { clock } });
    expect(JSON.parse(byType.stdout).map((e: { event: string }) => e.event)).toEqual([
      'order.created',
      'order.processing',
      'order.created',
    ]);
    const byOrder = await runCli(['events', 'list', '--order', testId('ord', 1), '--json'], { configDir: dir, overrides: { clock } });
    expect(JSON.parse(byOrder.stdout).map((e: { event_id: string }) => e.event_id)).toEqual([
      testId('evt', 21),
      testId('evt', 11),
      testId('evt', 1),
    ]);
    const since = await runCli(['events', 'list', '--since', '1h', '--json'], { configDir: dir, overrides: { clock } });
    expect(JSON.parse(since.stdout)).toHaveLength(3);
    const sinceDate = await runCli(['events', 'list', '--since', '2026-11-22T11:15:00Z', '--output', 'ndjson'], {
      configDir: dir,
      overrides: { clock },
    });
    expect(sinceDate.stdout.trim().split('\n')).toHaveLength(2);
    const limited = await runCli(['events', 'list', '--limit', '1', '--json', '--fields', 'event_id,status'], {
      configDir: dir,
      overrides: { clock },
    });
    expect(JSON.parse(limited.stdout)).toEqual([{ event_id: testId('evt', 2), status: 'PENDING' }]);
  });

  it('shows an order id sent as a number ("order_id": 981234), though the document names a string ord_<id>', async () => {
    const dir = tempConfigDir();
    const numbered = {
      event: 'order.delivered',
      event_id: testId('evt', 7),
      created_at: '2026-11-22T09:30:00Z',
      data: { order_id: 981234, status: 'DELIVERED' },
    };
    writeFileSync(join(dir, 'events.ndjson'), JSON.stringify(entry(numbered, '2026-11-22T11:00:00.000Z')) + '\n', { mode: 0o600 });
    const r = await runCli(['events', 'list', '--json'], { configDir: dir, overrides: { clock } });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { order_id: string | null }[]).map((e) => e.order_id)).toEqual(['981234']);
  });

  it('explains bad filters, and an empty inbox is not an error', async () => {
    const bad = await runCli(['events', 'list', '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since "last week" is neither a duration nor a date/);
    expect(bad.stderr).toContain('a duration before now (30m, 2h, 7d, 2w), today or yesterday');
    const empty = await runCli(['events', 'list', '--json']);
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('on a terminal, says whether the inbox is empty or the filters matched nothing', async () => {
    const configDir = inboxDir();
    const none = await runCli(['events', 'list', '--type', 'order.cancelled'], { configDir, tty: true, overrides: { clock } });
    expect(none.code).toBe(0);
    // Wrapped to the terminal's width: read as the one line it is.
    const said = (r: { stdout: string }) => unwrapped(r.stdout.replace(ANSI, ''));
    expect(said(none)).toContain(`No events match these filters (4 events in ${join(configDir, 'events.ndjson')}).`);
    const empty = await runCli(['events', 'list'], { tty: true });
    expect(said(empty)).toMatch(/No events in .*events\.ndjson\. Start a listener with: vouchers listen/);
    // No webhook secret saved: vouchers listen alone exits 2; --register gets one.
    expect(said(empty)).toContain('Start a listener with: vouchers listen --register');
    const withSecret = await runCli(['events', 'list'], { tty: true, env: { VOUCHERS_WEBHOOK_SECRET: SECRET } });
    expect(said(withSecret)).toMatch(/Start a listener with: vouchers listen\s*$/);
  });

  it('on a narrow terminal, keeps the event type beside the event id: the other columns go first, then the type is shortened, then the id is cut in its middle', async () => {
    const configDir = inboxDir();
    const lines = [
      entry(orderEvent(5, 'order.partially_delivered', 'PARTIALLY_DELIVERED'), '2026-11-22T11:58:00.000Z'),
      entry(orderEvent(6, 'order.refunded', 'REFUNDED'), '2026-11-22T11:59:00.000Z'),
    ].map((e) => JSON.stringify(e));
    writeFileSync(join(configDir, 'events.ndjson'), lines.join('\n') + '\n', { mode: 0o600 });
    const id = testId('evt', 5);
    for (const columns of [40, 45, 60, 65, 70]) {
      const r = await runCli(['events', 'list'], { configDir, tty: true, columns, overrides: { clock } });
      expect(r.code, r.stderr).toBe(0);
      const text = r.stdout.replace(ANSI, '');
      const table = text.split('\n').filter((l) => l.startsWith('│'));
      expect(table[0], `${columns}`).toMatch(/^│ EVENT +│ EVENT ID +│/);
      expect(table[1], `${columns}`).toContain('order.refunded');
      // The type cut to no fewer than 20 cells, then the id cut in its middle, keeping its prefix and last 8 characters.
      const shown = / (evt_\S*) +│$/.exec(table[2]!)?.[1];
      expect(table[2], `${columns}`).toMatch(columns >= 65 ? /^│ order\.partially_delivered +│/ : /^│ order\.partially_del\S*… +│/);
      if (columns >= 60) expect(shown, `${columns}`).toBe(id);
      else {
        expect(shown, `${columns}`).toMatch(/^evt_…[0-9A-Z]{8,}$/);
        expect(id.endsWith(shown!.slice('evt_…'.length)), `${columns}`).toBe(true);
      }
      for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      expect(r.stderr.replace(/\s+/g, ' ')).toMatch(new RegExp(`Left out to fit ${columns} columns: received_at, order_id, status\\b`));
    }
  });

  it('an inbox that is a directory: a usage error naming it (exit 2), list, show and replay alike', async () => {
    const dir = tempConfigDir();
    for (const args of [['list'], ['show', testId('evt', 1)], ['replay', testId('evt', 1), '--forward-to', 'http://127.0.0.1:9/hooks']]) {
      const r = await runCli(['events', ...args, '--inbox', dir], { env: { VOUCHERS_WEBHOOK_SECRET: SECRET } });
      expect([r.code, r.stderr], args[0]).toEqual([2, expect.stringContaining(`cannot read the inbox ${dir}: it is a directory`)]);
      expect(r.stderr).not.toMatch(/Unexpected error|EISDIR/);
    }
  });
});

describe('vouchers events list: marked events', () => {
  it('marks an event of a type this version does not know, in the CONTRACT column and as unknown_type in JSON', async () => {
    const dir = tempConfigDir();
    const newer = {
      ...entry({ ...orderEvent(3), event: 'order.on_hold' }, '2026-11-22T11:55:00.000Z'),
      meta: { signature_timestamp: NOW / 1000, webhook_id: testId('evt', 3), remote_address: '127.0.0.1', unknown_event_type: true },
    };
    writeFileSync(
      join(dir, 'events.ndjson'),
      JSON.stringify(entry(orderEvent(1), '2026-11-22T11:00:00.000Z')) + '\n' + JSON.stringify(newer) + '\n',
      { mode: 0o600 },
    );
    const piped = await runCli(['events', 'list'], { configDir: dir, overrides: { clock } });
    expect(piped.code).toBe(0);
    expect(
      piped.stdout
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => l.split('\t').slice(1).join(' | ')),
    ).toEqual([
      `order.on_hold | ${testId('evt', 3)} | ${testId('ord', 3)} | PENDING | unknown type`,
      `order.created | ${testId('evt', 1)} | ${testId('ord', 1)} | PENDING | `,
    ]);
    const json = await runCli(['events', 'list', '--json'], { configDir: dir, overrides: { clock } });
    expect(
      (JSON.parse(json.stdout) as { event: string; unknown_type: boolean; drift: string[] }[]).map((r) => [
        r.event,
        r.unknown_type,
        r.drift,
      ]),
    ).toEqual([
      ['order.on_hold', true, []],
      ['order.created', false, []],
    ]);
    // Listed by its exact type, which this version does not know.
    const byType = await runCli(['events', 'list', '--type', 'order.on_hold', '--json'], { configDir: dir, overrides: { clock } });
    expect(byType.code, byType.stderr).toBe(0);
    expect((JSON.parse(byType.stdout) as { event_id: string }[]).map((r) => r.event_id)).toEqual([testId('evt', 3)]);
  });

  it('marks an event that differs from the contract, next to inbox lines written before drift was recorded', async () => {
    const dir = tempConfigDir();
    const document = {
      event: 'order.delivered',
      event_id: `evt_${'a'.repeat(32)}`,
      created_at: '2026-11-22T09:30:00Z',
      data: {
        order_id: 'ord_981234',
        status: 'DELIVERED',
        total_amount: 25,
        currency: 'USD',
        fulfilled_from: 'cache',
        vouchers: [{ product_id: 'p', expiry: '2027-11-22' }],
      },
    };
    const drifted = {
      ...entry(document, '2026-11-22T11:58:00.000Z'),
      meta: {
        ...entry(document, '2026-11-22T11:58:00.000Z').meta,
        drift: ['data.reference: missing', 'created_at: not an ISO 8601 UTC timestamp (YYYY-MM-DDThh:mm:ssZ)'],
      },
    };
    const both = {
      ...entry({ event: 'order.expired', event_id: 'x-1', created_at: 'now', data: {} }, '2026-11-22T11:59:00.000Z'),
      meta: {
        signature_timestamp: null,
        webhook_id: null,
        remote_address: null,
        unknown_event_type: true,
        drift: ['event_id: must be evt_ followed by an id (no spaces or control characters)'],
      },
    };
    writeFileSync(
      join(dir, 'events.ndjson'),
      [entry(orderEvent(1), '2026-11-22T11:00:00.000Z'), drifted, both].map((e) => JSON.stringify(e)).join('\n') + '\n',
      { mode: 0o600 },
    );
    const piped = await runCli(['events', 'list', '--fields', 'event_id,drift'], { configDir: dir, overrides: { clock } });
    expect(piped.stdout.replace(/\n$/, '').split('\n')).toEqual([
      'x-1\tunknown type; differs: event_id',
      `${document.event_id}\tdiffers: data.reference, created_at`,
      `${testId('evt', 1)}\t`,
    ]);
    const json = JSON.parse((await runCli(['events', 'list', '--json'], { configDir: dir, overrides: { clock } })).stdout) as {
      drift: string[];
    }[];
    expect(json.map((r) => r.drift)).toEqual([both.meta.drift, drifted.meta.drift, []]);
    const shown = await runCli(['events', 'show', document.event_id], { configDir: dir });
    expect(shown.stdout).toMatch(
      /^drift\tdiffers from the contract, stored as received: data\.reference: missing; created_at: not an ISO 8601 UTC timestamp \(YYYY-MM-DDThh:mm:ssZ\)$/m,
    );
    const unmarked = await runCli(['events', 'show', testId('evt', 1)], { configDir: dir });
    expect(unmarked.stdout).not.toMatch(/^(drift|note)\t/m);
  });
});

describe('vouchers events list and show: an event id stored with more than one body', () => {
  /** A config dir whose inbox holds evt_4 with three bodies (PENDING, DELIVERED, FAILED) and a forward log of the first two. */
  function threeBodies(): string {
    const dir = tempConfigDir();
    const ev = orderEvent(4);
    const later = (status: string, at: string, n: number) => ({
      ...entry({ ...ev, data: { ...(ev.data as Record<string, unknown>), status } }, at),
      meta: { ...entry(ev, at).meta, body_number: n },
    });
    writeFileSync(
      join(dir, 'events.ndjson'),
      [
        entry(ev, '2026-11-22T11:00:00.000Z'),
        later('DELIVERED', '2026-11-22T11:01:00.000Z', 2),
        later('FAILED', '2026-11-22T11:02:00.000Z', 3),
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
      { mode: 0o600 },
    );
    const forward = (body: number | undefined, status: number | null, outcome: string) =>
      JSON.stringify({
        time: '2026-11-22T11:03:00.000Z',
        event_id: testId('evt', 4),
        url: 'http://127.0.0.1:1/hook',
        attempt: 1,
        max_attempts: 1,
        status,
        duration_ms: 3,
        error: status === null ? 'connection refused' : null,
        outcome,
        source: 'listen',
        ...(body ? { body_number: body } : {}),
      });
    writeFileSync(join(dir, 'events.forwards.ndjson'), `${forward(undefined, 200, 'delivered')}\n${forward(2, null, 'failed')}\n`, {
      mode: 0o600,
    });
    return dir;
  }

  it('lists each body as its own row, marked; show gives one body (the first, or --body N|last) with its own forward attempts', async () => {
    const dir = threeBodies();
    const piped = await runCli(['events', 'list', '--fields', 'event_id,status,drift'], { configDir: dir, overrides: { clock } });
    expect(piped.stdout.replace(/\n$/, '').split('\n')).toEqual([
      `${testId('evt', 4)}\tFAILED\tanother body than the first: body 3`,
      `${testId('evt', 4)}\tDELIVERED\tanother body than the first: body 2`,
      `${testId('evt', 4)}\tPENDING\t`,
    ]);
    const json = JSON.parse((await runCli(['events', 'list', '--json'], { configDir: dir, overrides: { clock } })).stdout) as {
      body_differs_from_first: boolean;
      body_number: number;
    }[];
    expect(json.map((r) => r.body_differs_from_first)).toEqual([true, true, false]);
    expect(json.map((r) => r.body_number)).toEqual([3, 2, 1]);
    // CSV has the marks as their own columns.
    const csv = (await runCli(['events', 'list', '--output', 'csv'], { configDir: dir, overrides: { clock } })).stdout.trim().split('\n');
    // The inbox has a forward log: whether the app answered 2xx is a column of its own.
    expect(csv[0]).toBe('received_at,event,event_id,order_id,status,drift,forwarded,unknown_type,body_number');
    expect(csv.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual(['false,3', 'false,2', 'false,1']);

    const first = await runCli(['events', 'show', testId('evt', 4)], { configDir: dir });
    expect(first.stdout).toMatch(/^status\tPENDING$/m);
    expect(first.stdout).toMatch(
      /^body\t1 of 3: this event id was delivered with 3 different bodies, each stored as its own entry \(--body 1 to 3, or --body last, shows and replays each\)$/m,
    );
    // Only this body's forward attempts: the second body's failure is not mixed in.
    expect(first.stdout).toMatch(/^forwards\t2026-11-22 11:03:00Z → 200 in 3 ms$/m);
    const second = await runCli(['events', 'show', testId('evt', 4), '--body', '2'], { configDir: dir });
    expect(second.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(second.stdout).toMatch(/^body\t2 of 3: /m);
    expect(second.stdout).toMatch(/^forwards\t2026-11-22 11:03:00Z → connection refused/m);
    const last = JSON.parse((await runCli(['events', 'show', testId('evt', 4), '--body', 'last', '--json'], { configDir: dir })).stdout);
    expect([last.envelope.data.status, last.body_number, last.bodies, last.forwards]).toEqual(['FAILED', 3, 3, []]);
    const single = JSON.parse((await runCli(['events', 'show', testId('evt', 1), '--json'], { configDir: inboxDir() })).stdout);
    expect([single.body_number, single.bodies]).toEqual([1, 1]);

    const none = await runCli(['events', 'show', testId('evt', 4), '--body', '4'], { configDir: dir });
    expect([none.code, none.stderr]).toEqual([4, expect.stringContaining(`event ${testId('evt', 4)} has 3 stored bodies, not 4`)]);
    const bad = await runCli(['events', 'show', testId('evt', 4), '--body', 'second'], { configDir: dir });
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--body "second" must be a body number (1 the first) or last')]);
  });

  it('replays the body --body picks, says which, and logs the attempt for that body', async () => {
    const dir = threeBodies();
    const target = await app(200);
    const r = await runCli(['events', 'replay', testId('evt', 4), '--body', '2', '--forward-to', target.url], {
      configDir: dir,
      env: { VOUCHERS_WEBHOOK_SECRET: SECRET },
      overrides: { clock },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${testId('evt', 4)} has 3 stored bodies; replaying body 2 (--body 1 to 3, or --body last, picks another)`);
    expect(JSON.parse(target.received[0]!.body).data.status).toBe('DELIVERED');
    const log = await readForwardLog(forwardLogPath(join(dir, 'events.ndjson')), testId('evt', 4));
    expect(log.at(-1)).toMatchObject({ source: 'replay', status: 200, outcome: 'delivered', body_number: 2 });
    const shown = await runCli(['events', 'show', testId('evt', 4), '--body', '2'], { configDir: dir });
    expect(shown.stdout).toMatch(/^forwards\t.*connection refused.*; 2026-11-22 12:00:00Z → 200 in \d+ ms$/m);
  });
});

describe('vouchers events show', () => {
  it('shows one event with its data; --json gives the stored entry and forward attempts', async () => {
    const dir = inboxDir();
    const human = await runCli(['events', 'show', testId('evt', 21)], { configDir: dir });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^event\tvoucher\.issued$/m);
    expect(human.stdout).toMatch(/^forwards\tnone$/m);
    // The signed timestamp reads as a time, like received_at, not as unix seconds.
    expect(human.stdout).toMatch(/^signed_at\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/m);
    expect(human.stdout).toContain(testId('vch', 1));
    // The X-Webhook-Id header carries the event id: not labelled as the id of a webhook endpoint (wh_…).
    expect(human.stdout).not.toMatch(/^webhook_id/m);
    const same = await runCli(['events', 'show', testId('evt', 2)], { configDir: dir });
    expect(same.stdout).toMatch(/^id_header\tX-Webhook-Id: the event id$/m);
    const json = await runCli(['events', 'show', testId('evt', 21), '--json'], { configDir: dir });
    const parsed = JSON.parse(json.stdout);
    expect(parsed.envelope.event).toBe('voucher.issued');
    expect(parsed.forwards).toEqual([]);
  });

  it('an X-Webhook-Id header other than the event id is shown as such', async () => {
    const dir = tempConfigDir();
    const stored = entry(orderEvent(7), '2026-11-22T11:00:00.000Z');
    stored.meta.webhook_id = 'dlv_42';
    writeFileSync(join(dir, 'events.ndjson'), JSON.stringify(stored) + '\n', { mode: 0o600 });
    const r = await runCli(['events', 'show', testId('evt', 7)], { configDir: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^id_header +X-Webhook-Id: dlv_42 \(not the event id\)$/m);
  });

  it('takes an id cut as a narrow terminal shows it (evt_…end) when exactly one stored event fits it', async () => {
    const dir = inboxDir();
    const id = testId('evt', 2);
    const cut = `evt_…${id.slice(-10)}`;
    for (const given of [cut, `evt_...${id.slice(-10)}`, `${id.slice(0, 8)}…${id.slice(-6)}`]) {
      const r = await runCli(['events', 'show', given], { configDir: dir });
      expect(r.code, `${given}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^event_id\t${id}$`, 'm'));
    }
    // Several stored events fit it: a usage error naming them, nothing shown.
    const several = await runCli(['events', 'show', 'evt_01JDQ5…'], { configDir: dir });
    expect(several.code).toBe(2);
    expect(several.stdout).toBe('');
    expect(several.stderr).toContain('evt_01JDQ5… fits 4 stored events');
    expect(several.stderr).toContain(testId('evt', 2));
    expect(several.stderr).toContain(testId('evt', 21));
    // None: not found, as a whole id is.
    const none = await runCli(['events', 'show', 'evt_…ZZZZZZZZ'], { configDir: dir });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('evt_…ZZZZZZZZ is not in the inbox');
    // replay takes it too, and sends the event it stands for.
    const target = await app(200);
    const replayed = await runCli(['events', 'replay', cut, '--forward-to', target.url], {
      configDir: dir,
      env: { VOUCHERS_WEBHOOK_SECRET: SECRET },
      overrides: { clock },
    });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(target.received.map((d) => d.headers['x-webhook-id'])).toEqual([id]);
  });

  it('an id not stored: a stored id it is a slip of is offered, an order id is named as one, an empty inbox says how events get there', async () => {
    const dir = inboxDir();
    const id = testId('evt', 21);
    const show = (given: string, flags: string[] = []) =>
      runCli(['events', 'show', given, ...flags], { configDir: dir, env: { NO_COLOR: '1' } });
    // A letter left out, another case, the prefix left out: the stored id is offered.
    for (const given of [id.slice(0, -2) + id.slice(-1), id.toLowerCase(), id.slice(4)]) {
      const r = await show(given);
      expect(r.code, given).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr, given).toContain(`Error: event ${given} is not in the inbox ${join(dir, 'events.ndjson')} (did you mean ${id}?)\n`);
      expect(r.stderr).toContain('hint      list what is stored with vouchers events list\n');
    }
    // Several stored ids as near (received within one millisecond): each is named, but not more than three.
    expect(nearEventIds('evt_01JDQ5P2M4R8T0X', ['evt_01JDQ5P2M4R8T0A', 'evt_01JDQ5P2M4R8T0B', 'evt_01JDQ5P2M4R8XXXX'])).toEqual([
      'evt_01JDQ5P2M4R8T0A',
      'evt_01JDQ5P2M4R8T0B',
    ]);
    expect(
      nearEventIds(
        'evt_01JDQ5P2M4R8T0X',
        ['A', 'B', 'C', 'D'].map((c) => `evt_01JDQ5P2M4R8T0${c}`),
      ),
    ).toEqual([]);
    // Nothing near: how many are stored.
    const far = await show('evt_nothing', ['--inbox', join(dir, 'events.ndjson')]);
    expect(far.stderr).toContain(`is not in the inbox ${join(dir, 'events.ndjson')}, which holds 4 events, none with this id\n`);
    expect(far.stderr).toContain(`hint      list what is stored with vouchers events list --inbox ${join(dir, 'events.ndjson')}\n`);
    // An order id: its events are listed with --order.
    const order = await show(testId('ord', 1));
    expect(order.code).toBe(4);
    expect(order.stderr).toContain(`Error: ${testId('ord', 1)} is an order id, not an event id: the inbox holds 3 events of that order\n`);
    expect(order.stderr).toContain(
      `hint      list them with vouchers events list --order ${testId('ord', 1)}, then show one by its EVENT_ID\n`,
    );
    // replay says it of each id too.
    const replayed = await runCli(
      ['events', 'replay', id.toLowerCase(), testId('evt', 2), '--forward-to', 'http://127.0.0.1:9/x', '--secret', SECRET],
      {
        configDir: dir,
        env: { NO_COLOR: '1' },
        overrides: { clock },
      },
    );
    expect(replayed.stderr).toContain(
      `${id.toLowerCase()}: event ${id.toLowerCase()} is not in the inbox ${join(dir, 'events.ndjson')} (did you mean ${id}?)\n`,
    );
    // No inbox yet, or an empty one: how events get there.
    const none = await runCli(['events', 'show', id], { configDir: tempConfigDir(), env: { NO_COLOR: '1' } });
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(
      /is not in the inbox .*events\.ndjson: there is no such file yet\n {2}code {6}NOT_FOUND\n {2}hint {6}vouchers listen stores the webhook events it receives there: against the sandbox, run vouchers listen --register and, in another terminal, vouchers sandbox trigger order\.delivered; for the events of another inbox, name its file with --inbox FILE\n/,
    );
    const emptyFile = join(tempConfigDir(), 'empty.ndjson');
    writeFileSync(emptyFile, '');
    const empty = await runCli(['events', 'show', id, '--inbox', emptyFile], { env: { NO_COLOR: '1' } });
    expect(empty.stderr).toContain(
      `is not in the inbox ${emptyFile}: it holds no events yet\n  code      NOT_FOUND\n  hint      vouchers listen --inbox ${emptyFile} stores`,
    );
  });

  it('an unknown id is not found (exit 4)', async () => {
    const r = await runCli(['events', 'show', testId('evt', 999)], { configDir: inboxDir() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/is not in the inbox/);
  });
});

describe('vouchers events replay', () => {
  it('re-sends the stored event freshly signed; the app verifies it independently', async () => {
    const dir = inboxDir();
    const target = await app(200);
    const r = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', target.url, '--forward-header', 'X-Env: dev'], {
      configDir: dir,
      env: { VOUCHERS_WEBHOOK_SECRET: SECRET },
      overrides: { clock },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/order\.created evt_\S+ → 200 in \d+ ms/);
    const got = target.received[0]!;
    expect(JSON.parse(got.body)).toEqual(orderEvent(2));
    const t = Math.floor(NOW / 1000);
    expect(got.headers['x-webhook-signature']).toBe(`t=${t},v1=${hmac(SECRET, t, got.body)}`);
    expect(got.headers['x-webhook-id']).toBe(testId('evt', 2));
    expect(got.headers['x-env']).toBe('dev');
    const log = await readForwardLog(forwardLogPath(join(dir, 'events.ndjson')), testId('evt', 2));
    expect(log).toMatchObject([{ source: 'replay', status: 200, outcome: 'delivered' }]);
    const shown = await runCli(['events', 'show', testId('evt', 2)], { configDir: dir });
    expect(shown.stdout).toMatch(/^forwards\t2026-11-22 12:00:00Z → 200 in \d+ ms$/m);
  });

  it('sends the body exactly as received when the inbox kept it (raw_body), whatever its type', async () => {
    const dir = tempConfigDir();
    const raw =
      '{"event": "order.expired", "event_id": "evt_raw", "created_at": "2026-11-22T09:30:00Z", "data": {"amount": 25.00, "ref": 12345678901234567890}}';
    const stored = { ...entry(JSON.parse(raw), '2026-11-22T11:00:00.000Z'), raw_body: raw };
    writeFileSync(join(dir, 'events.ndjson'), JSON.stringify(stored) + '\n', { mode: 0o600 });
    const target = await app(200);
    const r = await runCli(['events', 'replay', 'evt_raw', '--forward-to', target.url, '--secret', SECRET], {
      configDir: dir,
      overrides: { clock },
    });
    expect(r.code).toBe(0);
    const got = target.received[0]!;
    expect(got.body).toBe(raw);
    const t = Math.floor(NOW / 1000);
    expect(got.headers['x-webhook-signature']).toBe(`t=${t},v1=${hmac(SECRET, t, raw)}`);
    // events show never prints the raw body (it is not redacted).
    const shown = await runCli(['events', 'show', 'evt_raw', '--json'], { configDir: dir });
    expect(JSON.parse(shown.stdout).raw_body).toBeUndefined();
  });

  it("reports the app's refusal (exit 5) and an unreachable app (exit 7)", async () => {
    const dir = inboxDir();
    const target = await app(400);
    const refused = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', target.url, '--secret', SECRET, '--json'], {
      configDir: dir,
    });
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 400, delivered: false });
    const failing = await app(500);
    const failed = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', failing.url, '--secret', SECRET], {
      configDir: dir,
    });
    expect(failed.code).toBe(7);
    expect(failed.stderr).toMatch(/answered 500 to the replay/);
    expect(failed.stderr).toMatch(/your app failed while handling the event/);
    const wrongPath = await app(404);
    const missing = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', wrongPath.url, '--secret', SECRET], {
      configDir: dir,
    });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/check the path of --forward-to/);
    const closed = await app(200);
    const url = closed.url;
    await servers.pop()!();
    const down = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', url, '--secret', SECRET], { configDir: dir });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/connection refused/);
    // A 5xx of the app and no answer at all are both NETWORK_ERROR, one name.
    const failedJson = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', failing.url, '--secret', SECRET, '--json'], {
      configDir: dir,
    });
    const downJson = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', url, '--secret', SECRET, '--json'], {
      configDir: dir,
    });
    expect([failedJson.code, downJson.code]).toEqual([7, 7]);
    expect((JSON.parse(failedJson.stderr) as { error: { code: string } }).error.code).toBe('NETWORK_ERROR');
    expect((JSON.parse(downJson.stderr) as { error: { code: string } }).error.code).toBe('NETWORK_ERROR');
  });

  it('gives up on an app that does not answer after --forward-timeout, or the global --timeout', async () => {
    const dir = inboxDir();
    const held: (() => void)[] = [];
    const server = createServer((_req, res) => held.push(() => res.destroy()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(() => {
      for (const end of held) end();
      return new Promise((r) => server.close(() => r()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    const own = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', url, '--secret', SECRET, '--forward-timeout', '1'], {
      configDir: dir,
    });
    expect(own.code).toBe(7);
    expect(own.stderr).toMatch(/timed out after 1 s/);
    const global = await runCli(['--timeout', '1s', 'events', 'replay', testId('evt', 2), '--forward-to', url, '--secret', SECRET], {
      configDir: dir,
    });
    expect(global.code).toBe(7);
    expect(global.stderr).toMatch(/timed out after 1 s/);
    const bad = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', url, '--secret', SECRET, '--forward-timeout', '0'], {
      configDir: dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--forward-timeout "0" must be a whole number from 1 to 600/);
  });

  it('a forward log that cannot be written: the replay is done, and says its answer is not recorded', async () => {
    const dir = inboxDir();
    // A link to a folder that does not exist: read as no forward log, and no record can be appended.
    symlinkSync(join(dir, 'missing', 'forwards.ndjson'), join(dir, 'events.forwards.ndjson'));
    const target = await app(204);
    const r = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', target.url, '--secret', SECRET], { configDir: dir });
    expect(r.code).toBe(0);
    expect(target.received).toHaveLength(1);
    expect(r.stderr).toMatch(
      /Warning: cannot write the forward log \S*events\.forwards\.ndjson \(ENOENT\): what your app answers is not recorded/,
    );
    const json = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', target.url, '--secret', SECRET, '--json'], {
      configDir: dir,
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ delivered: true });
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ notice: { code: 'FORWARD_LOG_NOT_WRITTEN' } });
  });

  it('--not-forwarded replays the events as read at the start: the inbox is read once, not again for each event', async () => {
    const dir = inboxDir();
    const inbox = join(dir, 'events.ndjson');
    // The app empties the inbox when the first replay reaches it: a run that read the inbox
    // again for each event would find the others gone.
    const { url, received } = await app(204, (got) => {
      if (got.length === 1) writeFileSync(inbox, '');
    });
    const r = await runCli(['events', 'replay', '--not-forwarded', '--forward-to', url, '--secret', SECRET], { configDir: dir });
    expect(r.stderr).toMatch(/Replayed 4 events: each answered 2xx/);
    expect(r.code).toBe(0);
    expect(received).toHaveLength(4);
  });

  it('event ids named are found in one read of the inbox, not one read each', async () => {
    const dir = inboxDir();
    const inbox = join(dir, 'events.ndjson');
    // The app empties the inbox when the first replay reaches it: a run that read the inbox
    // again for each id would find the others gone.
    const { url, received } = await app(204, (got) => {
      if (got.length === 1) writeFileSync(inbox, '');
    });
    const ids = [testId('evt', 1), testId('evt', 11), testId('evt', 21), testId('evt', 2)];
    const r = await runCli(['events', 'replay', ...ids, '--forward-to', url, '--secret', SECRET], { configDir: dir });
    expect(r.stderr).toMatch(/Replayed 4 events: each answered 2xx/);
    expect(r.code).toBe(0);
    expect(received.map((d) => (JSON.parse(d.body) as { event_id: string }).event_id)).toEqual(ids);
    // An id not stored is still said, and the others go.
    writeFileSync(inbox, '');
    const again = inboxDir();
    const missing = await runCli(
      ['events', 'replay', testId('evt', 1), testId('evt', 99), testId('evt', 2), '--forward-to', url, '--secret', SECRET],
      {
        configDir: again,
      },
    );
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`${testId('evt', 99)}: event ${testId('evt', 99)} is not in the inbox`);
    expect(missing.stderr).toMatch(/1 of 3 events were not delivered/);
    expect(received).toHaveLength(6);
  });

  it('--not-forwarded without --forward-to says which of the events were never forwarded, not that all were forwarded there', async () => {
    const { url, received } = await app(204);
    const record = (n: number, status: number, outcome: string) =>
      JSON.stringify({
        time: '2026-11-22T11:55:00.000Z',
        event_id: testId('evt', n),
        url,
        attempt: 1,
        max_attempts: 1,
        status,
        duration_ms: 5,
        error: null,
        outcome,
        source: 'listen',
      }) + '\n';
    // Only event 1 was forwarded (delivered): the three others never were.
    const never = inboxDir();
    writeFileSync(forwardLogPath(join(never, 'events.ndjson')), record(1, 200, 'delivered'), { mode: 0o600 });
    const fallback = await runCli(['events', 'replay', '--not-forwarded', '--secret', SECRET], { configDir: never });
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(fallback.stderr).toContain(
      `Forwarding to ${url}, where this inbox's other events were forwarded: these 3 never were (--forward-to URL picks another)`,
    );
    expect(fallback.stderr).not.toContain('last forwarded');
    expect(received).toHaveLength(3);
    // Event 2 was forwarded and refused: it was, the two others were not.
    const some = inboxDir();
    writeFileSync(forwardLogPath(join(some, 'events.ndjson')), record(1, 200, 'delivered') + record(2, 400, 'failed'), { mode: 0o600 });
    const mixed = await runCli(['events', 'replay', '--not-forwarded', '--secret', SECRET], { configDir: some });
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(mixed.stderr).toContain(
      `Forwarding to ${url}, where 1 of these 3 events was last forwarded; the other 2 never were (--forward-to URL picks another)`,
    );
    expect(received).toHaveLength(6);
  });

  it('needs a secret and --forward-to', async () => {
    const dir = inboxDir();
    const noSecret = await runCli(['events', 'replay', testId('evt', 2), '--forward-to', 'http://127.0.0.1:9/x'], { configDir: dir });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/no webhook signing secret/);
    const noTarget = await runCli(['events', 'replay', testId('evt', 2)], { configDir: dir });
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(/--forward-to/);
  });
});
