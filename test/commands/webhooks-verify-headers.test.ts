import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { parseEventFilter } from '../../src/listener/filter.js';
import { startListener, type Listener, type ListenerActivity } from '../../src/listener/server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { hmac, nowSeconds, orderEvent, post, SECRET } from '../listener/deliveries.js';

const open: Listener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function listener(secret: string, activity: ListenerActivity[] = []): Promise<Listener> {
  const l = await startListener({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: [secret],
    tolerance: 300,
    inbox: await InboxWriter.open(join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson')),
    filter: parseEventFilter(undefined),
    clock: { now: () => Date.now() },
    onActivity: (a) => activity.push(a),
  });
  open.push(l);
  return l;
}

function file(name: string, content: string): string {
  const path = join(tempConfigDir(), name);
  writeFileSync(path, content);
  return path;
}

const STANDARD_SECRET = `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`;
const hex = (key: string | Buffer, message: string) => createHmac('sha256', key).update(message).digest('hex');

/** A delivery signed by an independent HMAC, each way the listener accepts, and its secret. */
function deliveries(n: number): { name: string; secret: string; body: string; path: string; headers: Record<string, string> }[] {
  const body = JSON.stringify(orderEvent(n));
  const t = nowSeconds();
  const key = Buffer.from(STANDARD_SECRET.slice('whsec_'.length), 'base64');
  return [
    {
      name: 'Standard Webhooks',
      secret: STANDARD_SECRET,
      body,
      path: '/webhooks',
      headers: {
        'webhook-id': `msg_${n}`,
        'webhook-timestamp': String(t),
        'webhook-signature': `v1,${createHmac('sha256', key).update(`msg_${n}.${t}.${body}`).digest('base64')}`,
      },
    },
    {
      name: 'X-Hub-Signature-256',
      secret: SECRET,
      body,
      path: '/webhooks',
      headers: { 'X-Hub-Signature-256': `sha256=${hex(SECRET, body)}` },
    },
    {
      name: 'the request scheme, on a path with a query',
      secret: SECRET,
      body,
      path: '/webhooks?source=api',
      headers: { 'X-Timestamp': String(t), 'X-Signature': `t=${t},v1=${hex(SECRET, `${t}POST/webhooks?source=api${body}`)}` },
    },
    {
      name: 'our scheme, in base64',
      secret: SECRET,
      body,
      path: '/webhooks',
      headers: {
        'X-Webhook-Timestamp': String(t),
        'X-Webhook-Signature': `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('base64')}`,
      },
    },
  ];
}

describe('vouchers webhooks verify takes the headers of the delivery, and answers as the listener did', () => {
  it('valid for each scheme the listener accepts: headers with --header, or a whole saved request with --headers', async () => {
    for (const d of deliveries(41)) {
      const l = await listener(d.secret);
      const url = new URL(l.url);
      url.search = new URL(d.path, 'http://x').search;
      const answer = await post(url.toString(), d.body, { 'content-type': 'application/json', ...d.headers });
      expect(answer.status, d.name).toBe(200);

      const headerFlags = Object.entries(d.headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
      const body = file('body.json', d.body);
      const flags = await runCli(['webhooks', 'verify', '--body', body, ...headerFlags, '--path', d.path, '--secret', d.secret, '--json']);
      expect(flags.code, `${d.name}: ${flags.stderr}`).toBe(0);
      expect(JSON.parse(flags.stdout)).toMatchObject({ valid: true, event_id: orderEvent(41).event_id });

      // A request saved whole, as a server log or curl -v shows it: request line, CRLF, headers, a blank line, the body.
      const head = [
        `POST ${d.path} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        ...Object.entries(d.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      const saved = file('delivery.http', `${head.join('\r\n')}\r\n\r\n${d.body}`);
      const whole = await runCli(['webhooks', 'verify', '--headers', saved], { env: { VOUCHERS_WEBHOOK_SECRET: d.secret } });
      expect(whole.code, `${d.name}: ${whole.stderr}`).toBe(0);
      expect(whole.stdout, d.name).toMatch(/^valid: signed at \d+, \d+ s ago \(order\.created evt_\S+\)/);
    }
  });

  it('a Standard Webhooks delivery says how it was signed; under another secret it is refused, as by the listener', async () => {
    const [d] = deliveries(42);
    const headerFlags = Object.entries(d!.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const body = file('body.json', d!.body);
    const ok = await runCli(['webhooks', 'verify', '--body', body, ...headerFlags, '--secret', STANDARD_SECRET]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>)');

    const l = await listener('whsec_other');
    expect((await post(l.url, d!.body, { 'content-type': 'application/json', ...d!.headers })).status).toBe(401);
    const other = await runCli(['webhooks', 'verify', '--body', body, ...headerFlags, '--secret', 'whsec_other']);
    expect(other.code).toBe(5);
    expect(other.stderr).toMatch(/no v1 signature of webhook-signature matches/);
  });

  it('Standard Webhooks headers without webhook-signature, or it without the others: the listener and verify name the missing header', async () => {
    const [d] = deliveries(43);
    const body = file('body.json', d!.body);
    const l = await listener(STANDARD_SECRET);
    const { 'webhook-signature': signature, ...rest } = d!.headers;
    for (const [headers, missing] of [
      [rest, 'webhook-signature header missing'],
      [{ 'webhook-signature': signature! }, 'webhook-id and webhook-timestamp headers missing'],
    ] as const) {
      const answer = await post(l.url, d!.body, { 'content-type': 'application/json', ...headers });
      expect(answer.status, missing).toBe(401);
      expect((answer.json as { error: { message: string } }).error.message, missing).toContain(missing);
      const flags = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
      const r = await runCli(['webhooks', 'verify', '--body', body, ...flags, '--secret', STANDARD_SECRET]);
      expect(r.code, missing).toBe(5);
      expect(r.stderr, missing).toMatch(new RegExp(`invalid: ${missing}: the delivery carries .* of the Standard Webhooks scheme`));
      expect(r.stderr, missing).not.toContain('X-Webhook-Signature header missing');
      // The hint leads with the header that is missing, not with --signature (X-Webhook-Signature's).
      const hint = /hint {6}(.*)/.exec(r.stderr)?.[1] ?? '';
      expect(hint, missing).toMatch(
        new RegExp(`^pass the ${missing.replace(' missing', '')} the delivery came with .*the sender must add`),
      );
      expect(hint, missing).not.toContain('--signature');
    }
    // All three there, one of them malformed: the hint is about them, not --signature.
    const malformed = await runCli([
      'webhooks',
      'verify',
      '--body',
      body,
      '-H',
      'webhook-id: msg_1',
      '-H',
      'webhook-timestamp: x',
      '-H',
      `webhook-signature: ${signature!}`,
      '--secret',
      STANDARD_SECRET,
    ]);
    expect(malformed.code).toBe(5);
    expect(malformed.stderr).toMatch(/hint {6}pass webhook-id, webhook-timestamp and webhook-signature exactly as received/);
    expect(malformed.stderr).not.toContain('--signature');
  });

  it('needs a header and a body: usage errors (exit 2) that say what to give', async () => {
    const body = file('body.json', JSON.stringify(orderEvent(43)));
    const none = await runCli(['webhooks', 'verify', '--body', body, '--secret', SECRET]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no header of the delivery given/);
    const headersOnly = await runCli([
      'webhooks',
      'verify',
      '--headers',
      file('h.txt', 'X-Webhook-Signature: t=1,v1=00\n'),
      '--secret',
      SECRET,
    ]);
    expect(headersOnly.code).toBe(2);
    expect(headersOnly.stderr).toMatch(/holds no body after its headers/);
    const bad = await runCli(['webhooks', 'verify', '--body', body, '--header', 'no colon here', '--secret', SECRET]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--header "no colon here" is not "Name: value"/);
  });
});

describe('the listener and webhooks verify refuse a delivery with the same code and reason', () => {
  it('for each problem: bad signature, stale or future timestamp, missing or malformed header, timestamps that differ, body not JSON or not an envelope', async () => {
    const activity: ListenerActivity[] = [];
    const l = await listener(SECRET, activity);
    const t = nowSeconds();
    const event = JSON.stringify(orderEvent(51));
    const signed = (body: string, at = t) => ({
      'X-Webhook-Timestamp': String(at),
      'X-Webhook-Signature': `t=${at},v1=${hmac(SECRET, at, body)}`,
    });
    const cases: [string, string, Record<string, string>][] = [
      ['bad signature', event, { 'X-Webhook-Signature': `t=${t},v1=${hmac('whsec_other', t, event)}` }],
      ['stale', event, signed(event, t - 900)],
      ['future', event, signed(event, t + 900)],
      ['missing header', event, { 'X-Webhook-Id': 'evt_1' }],
      ['malformed header', event, { 'X-Webhook-Signature': `v1=${hmac(SECRET, t, event)}` }],
      ['timestamps differ', event, { ...signed(event), 'X-Webhook-Timestamp': String(t - 1) }],
      ['not JSON', '{"event":', signed('{"event":')],
      ['not an envelope', '{"hello":1}', signed('{"hello":1}')],
    ];
    for (const [name, body, headers] of cases) {
      const answer = await post(l.url, body, { 'content-type': 'application/json', ...headers });
      const refused = activity.at(-1);
      expect(refused?.kind, name).toBe('rejected');
      const r = (refused as Extract<ListenerActivity, { kind: 'rejected' }>).rejection;
      expect(answer.status, name).toBe(r.status);
      const headerFlags = Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
      const v = await runCli(['webhooks', 'verify', '--body', file('body.json', body), ...headerFlags, '--secret', SECRET, '--json']);
      expect(v.code, name).toBe(5);
      expect(JSON.parse(v.stderr), name).toMatchObject({ error: { code: r.code }, reason: r.reason, status: r.status });
    }
  });
});
