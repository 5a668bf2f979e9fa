/**
 * A server that answers GET /webhooks as a list of its endpoints (`{"data": […]}`,
 * `{"webhooks": […]}`), or wraps the endpoint without an id (`{"data": {"url": …}}`): the one
 * endpoint is read from inside, as lists and wrapped records are read everywhere else, by
 * `webhooks show` and by the look-up of `webhooks register`; several are shown as listed.
 * `{"data": […]}` used to be shown as one field named `data`, and `webhooks register --events`
 * read no event types from a wrapped endpoint, so it said the endpoint received none. Its
 * warning named every field of the endpoint as missing; it says the endpoint came in a list,
 * or under "data" (an endpoint without an id too, shown or registered), and names only what
 * the endpoint itself lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const ENDPOINT = { webhook_id: 'wh_1', url: 'https://hooks.example/in', events: [...EVENT_TYPES], created_at: '2026-03-01T10:00:00Z' };
let answer: unknown;
/** The answer to POST /webhooks; undefined: the endpoint, updated. */
let posted: unknown;
let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'POST') return sendJson(res, 200, posted ?? { ...ENDPOINT, updated_at: '2026-03-02T10:00:00Z' });
    sendJson(res, 200, answer);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const { webhook_id: _id, ...withoutId } = ENDPOINT;
/** Each shape, its body, and what the warning says differed: that it was a list, and only what the endpoint inside lacks (ENDPOINT has no updated_at). */
const SHAPES: [string, unknown, string?][] = [
  [
    '{"data": [endpoint]}',
    { data: [ENDPOINT], has_more: false },
    'the webhook is the one entry of the list under "data", not an object at the top of the body; updated_at: missing.',
  ],
  [
    '{"webhooks": [endpoint]}',
    { webhooks: [ENDPOINT] },
    'the webhook is the one entry of the list under "webhooks", not an object at the top of the body; updated_at: missing.',
  ],
  ['[endpoint]', [ENDPOINT], 'the webhook is the one entry of a bare array, not an object at the top of the body; updated_at: missing.'],
  [
    '{"data": {endpoint without an id}}',
    { data: withoutId },
    'the webhook is under "data", not at the top of the body; webhook_id: missing; updated_at: missing.',
  ],
];

describe('GET /webhooks answered as a list of one, or wrapped without an id', () => {
  for (const [name, body, differs] of SHAPES) {
    it(`${name}: webhooks show reads the endpoint from inside`, async () => {
      answer = body;
      const r = await runCli(['webhooks', 'show'], { env });
      expect(r.code, r.stderr).toBe(0);
      // The warning says the endpoint came in a list, not that its fields were missing.
      if (differs) {
        expect(r.stderr).toContain(
          `answered in a shape that differs from the contract this version of vouchers knows: ${differs} Shown as received`,
        );
        expect(r.stderr).not.toContain('url: missing');
      }
      expect(r.stdout).toContain('url\thttps://hooks.example/in\n');
      // (Without an id, the endpoint is shown in the generic layout, its list joined by "; ".)
      expect(r.stdout).toMatch(/^events\torder\.created[,;] order\.processing/m);
      expect(r.stdout).not.toMatch(/^data\t/m);
      const json = await runCli(['webhooks', 'show', '--json'], { env });
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ url: 'https://hooks.example/in', events: [...EVENT_TYPES] });
    });

    it(`${name}: webhooks register --events reads the event types the endpoint has`, async () => {
      answer = body;
      const before = server.requests.length;
      const r = await runCli(['webhooks', 'register', '--url', 'https://hooks.example/in', '--events', 'order.*,voucher.*'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('receives only');
      // Every type already: no list sent, so types added later are received too.
      const post = server.requests.slice(before).find((q) => q.method === 'POST')!;
      expect(JSON.parse(post.body)).not.toHaveProperty('events');
    });
  }

  it('a registration answered {"data": {endpoint without an id}}: the warning says the webhook is under "data" and names what it lacks', async () => {
    answer = { ...ENDPOINT, updated_at: '2026-03-02T10:00:00Z' };
    posted = { data: { ...withoutId, updated_at: '2026-03-02T10:00:00Z' } };
    try {
      const r = await runCli(['webhooks', 'register', '--url', 'https://hooks.example/in'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'answered in a shape that differs from the contract this version of vouchers knows: the webhook is under "data", not at the top of the body; webhook_id: missing. Shown as received',
      );
      expect(r.stderr).not.toContain('url: missing');
    } finally {
      posted = undefined;
    }
  });

  it('several endpoints in {"data": […]} are shown as listed, not as one', async () => {
    answer = { data: [ENDPOINT, { ...ENDPOINT, webhook_id: 'wh_2', url: 'https://hooks.example/other' }] };
    const r = await runCli(['webhooks', 'show'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(answer);
  });
});
