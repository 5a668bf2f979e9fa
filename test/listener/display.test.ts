/** What `vouchers listen` prints for marked events, masked fields and hostile text. */
import { describe, expect, it } from 'vitest';
import type { ForwardRecord } from '../../src/core/journal/forward-log.js';
import type { InboxEntry } from '../../src/core/journal/inbox.js';
import type { IO } from '../../src/core/io/io.js';
import { createDisplay, markWarning } from '../../src/listener/display.js';
import type { ListenerActivity } from '../../src/listener/server.js';
import { safeJson } from '../../src/core/output/printable.js';
import { codeFieldsIn, isCodeField, redactCodes } from '../../src/listener/redact.js';
import { documentDelivered, hexEventId, orderEvent, testId, voucherEvent } from './deliveries.js';

/**
 * An IO whose streams record what is written, line by line (the display writes its queued
 * lines once per turn of the event loop, or at once on flush()).
 */
function captureIO(env: IO['env'] = {}): { io: IO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const lines = (s: string) => s.split(/(?<=\n)/);
  const io = {
    env,
    stdout: { write: (s: string) => out.push(...lines(s)) },
    stderr: { write: (s: string) => err.push(...lines(s)) },
  } as unknown as IO;
  return { io, out, err };
}

function entry(envelope: Record<string, unknown>, meta: Partial<InboxEntry['meta']> = {}): InboxEntry {
  return {
    received_at: '2026-11-22T09:30:01.000Z',
    envelope: envelope as InboxEntry['envelope'],
    meta: { signature_timestamp: 1, webhook_id: null, remote_address: null, ...meta },
  };
}

const delivered = entry(documentDelivered(1), { drift: ['data.reference: missing'] });
const unknown = entry(
  {
    event: 'order.expired',
    event_id: hexEventId(2),
    created_at: '2026-11-22T09:30:00Z',
    data: { order_id: 'ord_981234', status: 'EXPIRED' },
  },
  { unknown_event_type: true },
);

describe('listen display: events that differ from the contract', () => {
  it('marks the event line and warns on stderr with the event id, the fields, and that it was stored', () => {
    const { io, out, err } = captureIO();
    const display = createDisplay(io, { json: false, color: false, colorErr: false });
    display.activity({ kind: 'event', entry: delivered });
    display.activity({ kind: 'event', entry: unknown });
    display.activity({ kind: 'event', entry: entry(documentDelivered(3), {}) });
    display.flush();
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(
      new RegExp(`^09:30:01  order\\.delivered +${hexEventId(1)}  ord_981234  DELIVERED  \\(differs from contract\\)\\n$`),
    );
    expect(out[1]).toMatch(/order\.expired .* EXPIRED {2}\(unknown event type\)\n$/);
    expect(out[2]).not.toMatch(/differs|unknown/);
    expect(err).toHaveLength(2);
    expect(err[0]).toBe(
      `Warning: ${hexEventId(1)} (order.delivered) differs from the contract: data.reference: missing. ` +
        `It was accepted and stored as received; details: vouchers events show ${hexEventId(1)} (later order.delivered events that differ the same way are only marked)\n`,
    );
    // Another event that differs the same way: marked, not warned about again.
    display.activity({ kind: 'event', entry: entry(documentDelivered(7), { drift: ['data.reference: missing'] }) });
    display.flush();
    expect(err).toHaveLength(2);
    expect(out[3]).toMatch(/\(differs from contract\)\n$/);
    expect(err[1]).toMatch(
      new RegExp(
        `^Warning: ${hexEventId(2)} \\(order\\.expired\\) is of a type this version of vouchers does not know .*accepted and stored as received`,
      ),
    );
  });

  it("on a terminal, its warnings are wrapped to the terminal's width at spaces, the command to copy kept whole", () => {
    const { io, err } = captureIO();
    Object.assign(io, { stderrIsTTY: true, columns: 60 });
    const display = createDisplay(io, { json: false, color: false, colorErr: false });
    display.activity({
      kind: 'event',
      entry: entry(documentDelivered(1), { drift: ['data.reference: missing', 'data.vouchers: missing'] }),
    });
    display.flush();
    const lines = err.join('').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) if (!l.includes('vouchers events show')) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(lines).toContain(`vouchers events show ${hexEventId(1)}`);
  });

  it('says a marked event is forwarded unchanged when forwarding, and counts differences past five', () => {
    const many = entry(documentDelivered(4), {
      drift: ['a: missing', 'b: missing', 'c: missing', 'd: missing', 'e: missing', 'f: missing', 'g: missing'],
    });
    expect(markWarning(many, true)).toMatch(
      /differs from the contract: a: missing; b: missing; c: missing; d: missing; e: missing; and 2 more\. It was accepted and stored as received, and is forwarded unchanged;/,
    );
    expect(markWarning(entry(documentDelivered(5)), true)).toBeUndefined();
    // An entry written before drift was recorded reads as matching.
    expect(
      markWarning(
        {
          envelope: documentDelivered(6) as InboxEntry['envelope'],
          meta: { signature_timestamp: 1, webhook_id: null, remote_address: null },
        },
        false,
      ),
    ).toBeUndefined();
  });

  it('with --json: drift and unknown_event_type on every event object', () => {
    const { io, out } = captureIO();
    const display = createDisplay(io, { json: true, color: false, colorErr: false });
    display.activity({ kind: 'event', entry: delivered });
    display.activity({ kind: 'event', entry: unknown });
    display.flush();
    const [a, b] = out.map((l) => JSON.parse(l));
    expect(a).toMatchObject({
      kind: 'event',
      event: 'order.delivered',
      order_id: 'ord_981234',
      status: 'DELIVERED',
      unknown_event_type: false,
      drift: ['data.reference: missing'],
    });
    expect(a.envelope).toEqual(documentDelivered(1));
    expect(b).toMatchObject({ kind: 'event', event: 'order.expired', unknown_event_type: true, unknown_type: true, drift: [] });
  });

  it('marks a delivery of a stored event id with another body and warns each time that it was stored too', () => {
    const { io, out, err } = captureIO();
    const display = createDisplay(io, {
      json: false,
      color: false,
      colorErr: false,
      showCommand: (id) => `vouchers events show ${id} --inbox ./events.ndjson`,
    });
    const other = entry(documentDelivered(1), { body_number: 2 });
    display.activity({ kind: 'event', entry: other });
    display.activity({ kind: 'event', entry: other });
    display.flush();
    expect(out[0]).toMatch(/DELIVERED {2}\(another body than the first: body 2\)\n$/);
    expect(err).toEqual([
      `Warning: ${hexEventId(1)} was delivered before with another body: the sender reused the event id for other content, ` +
        'or changed the event between deliveries. This delivery is stored too (body 2), nothing is dropped; ' +
        `vouchers events show ${hexEventId(1)} --inbox ./events.ndjson --body 2 shows it\n`,
      expect.stringContaining(`Warning: ${hexEventId(1)} was delivered before with another body`),
    ]);
    const json = captureIO();
    const jsonDisplay = createDisplay(json.io, { json: true, color: false, colorErr: false });
    jsonDisplay.activity({ kind: 'event', entry: other });
    jsonDisplay.activity({ kind: 'event', entry: delivered });
    jsonDisplay.flush();
    expect(json.out.map((l) => JSON.parse(l).body_differs_from_first)).toEqual([true, false]);
    expect(json.out.map((l) => JSON.parse(l).body_number)).toEqual([2, 1]);
  });

  it('masks code-like fields of an unknown payload, names where they were, and escapes what a terminal would act on', () => {
    const { io, out, err } = captureIO();
    const leaky = entry(
      {
        event: 'voucher.claimed',
        event_id: hexEventId(7),
        created_at: '2026-11-22T09:30:00Z',
        data: {
          claim: {
            voucher_code: 'LEAK-1',
            redemptionCode: 'LEAK-2',
            pin_code: '9911',
            card_number: '6006491234567890',
            claim_code: 'LEAK-3',
          },
          currency_code: 'USD',
          country_code: 'US',
          note: 'x\u009b[2J\u202e',
          'code\u001b[31m': 'LEAK-4',
        },
      },
      { unknown_event_type: true },
    );
    const display = createDisplay(io, { json: true, color: false, colorErr: false });
    display.activity({ kind: 'event', entry: leaky });
    display.flush();
    const text = out.join('') + err.join('');
    expect(text).not.toMatch(/LEAK-|9911|6006491234567890/);
    expect(text).not.toMatch(/[\u001b\u009b\u202e]/);
    const shown = JSON.parse(out[0]!).envelope.data;
    expect(shown.claim).toEqual({
      voucher_code: '[redacted]',
      redemptionCode: '[redacted]',
      pin_code: '[redacted]',
      card_number: '[redacted]',
      claim_code: '[redacted]',
    });
    expect(shown.currency_code).toBe('USD');
    expect(shown.note).toBe('x\u009b[2J\u202e'); // escaped on the line, the same value once parsed
    // Under --json the warning is a JSON notice, as every note on stderr then is: its code
    // says it is a warning, its message has no "Warning: " of the line for people.
    const notices = err
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { notice: { code: string; message: string } });
    expect(notices.find((n) => n.notice.code === 'CODE_IN_PAYLOAD')?.notice.message).toMatch(
      /^(?!Warning)\S.*carries voucher code fields \(data\.claim\.voucher_code, data\.claim\.redemptionCode, data\.claim\.pin_code, data\.claim\.card_number, data\.claim\.claim_code, "data\.code\\u001b\[31m"\)/,
    );
  });
});

describe('code-like field names', () => {
  it('masks codes, pins, card numbers and secrets, and leaves other codes alone', () => {
    for (const k of [
      'code',
      'pin',
      'PIN',
      'codes',
      'voucher_code',
      'voucherCode',
      'redemption_code',
      'redemption-code',
      'claim_code',
      'card_number',
      'cardNumber',
      'card_no',
      'pin_code',
      'code_last4',
      'codeLast4',
      'promo_code',
      'gift_card_code',
      'barcode',
      'activation_key',
      'product_key',
      'access_token',
      'signing_secret',
      'cvv',
    ]) {
      expect(isCodeField(k), k).toBe(true);
    }
    for (const k of [
      'currency_code',
      'country_code',
      'error_code',
      'status_code',
      'http_code',
      'product_code',
      'reason_code',
      'order_id',
      'product_id',
      'reference',
      'card_type',
      'encoding',
      'pinned',
      'status',
    ]) {
      expect(isCodeField(k), k).toBe(false);
    }
  });

  it('masks what every other output masks: serials, redemption links, and a card number or link inside an object', () => {
    const payload = {
      data: {
        vouchers: [
          {
            serial: 'SER-0001-515M',
            serial_number: 'SN-7777',
            redemption_url: 'https://redeem.example/r/CODE-515M',
            barcode_value: '0123456789',
            card: { number: '4111111111111111', brand: 'visa' },
            claim: { url: 'https://claim.example/CODE-1' },
            product_id: 'sbx-instant',
          },
        ],
      },
    };
    const r = redactCodes(payload);
    const text = JSON.stringify(r.value);
    for (const leaked of ['515M', '7777', '0123456789', '4111111111111111', 'CODE-1']) expect(text).not.toContain(leaked);
    expect(text).toContain('"brand":"visa"');
    expect(text).toContain('"product_id":"sbx-instant"');
    expect(r.found).toEqual([
      'data.vouchers.0.serial',
      'data.vouchers.0.serial_number',
      'data.vouchers.0.redemption_url',
      'data.vouchers.0.barcode_value',
      'data.vouchers.0.card.number',
      'data.vouchers.0.claim.url',
    ]);
    expect(codeFieldsIn(payload)).toEqual(r.found);
  });

  it("leaves alone a code named for a reason, an error or a currency by the object it sits in, as reason_code is; a voucher's stays redacted", () => {
    const payload = {
      data: {
        order_id: 'ord_1',
        reason: { code: 'VENDOR_FAILURE', message: 'the vendor timed out' },
        cancellation_reason: { code: 'OUT_OF_STOCK' },
        errors: [{ code: 'E42' }],
        currency: { code: 'USD', minor_units: 2 },
        failure: { code: 'VENDOR_TIMEOUT', message: 'no answer' },
        product: { code: 'LEAK-P' },
        items: [{ product_id: 'p', code: 'LEAK-I' }],
        voucher: { code: 'LEAK-V' },
        code: 'LEAK-D',
      },
    };
    const r = redactCodes(payload);
    const text = JSON.stringify(r.value);
    for (const kept of ['VENDOR_FAILURE', 'OUT_OF_STOCK', 'E42', '"code":"USD"', 'VENDOR_TIMEOUT']) expect(text).toContain(kept);
    expect(text).not.toContain('LEAK-');
    expect(r.found).toEqual(['data.product.code', 'data.items.0.code', 'data.voucher.code', 'data.code']);
    expect(codeFieldsIn(payload)).toEqual(r.found);
  });

  it('redacts a bare voucher holding a string (the code itself), not a voucher record', () => {
    const value = {
      data: { voucher: 'PLAINVOUCHERCODE99', gift_card: 'GC-1', order: { voucher: { voucher_id: 'vch_1', status: 'ISSUED' } } },
    };
    const r = redactCodes(value);
    expect(JSON.stringify(r.value)).not.toContain('PLAINVOUCHERCODE99');
    expect(r.found).toEqual(['data.voucher', 'data.gift_card']);
    expect(codeFieldsIn(value)).toEqual(r.found);
    expect(JSON.stringify(r.value)).toContain('"voucher_id":"vch_1"');
  });

  it('keeps a parsed __proto__ key as a field', () => {
    const value = JSON.parse('{"__proto__":{"code":"LEAK"},"a":1}') as Record<string, unknown>;
    const r = redactCodes(value);
    expect(JSON.stringify(r.value)).toBe('{"__proto__":{"code":"[redacted]"},"a":1}');
    expect(r.found).toEqual(['__proto__.code']);
  });

  it('finds the same code fields without copying as redacting does', () => {
    const values = [
      {
        event: 'order.delivered',
        data: {
          order_id: 'ord_1',
          vouchers: [
            { code: 'X', pin: null },
            { voucher_code: 'Y', currency_code: 'USD' },
          ],
          nested: { redemptionCode: { deep: 1 } },
        },
      },
      JSON.parse('{"__proto__":{"code":"LEAK"},"a":[[{"card_number":"4"}]]}'),
      { data: {} },
    ];
    for (const v of values) {
      expect(codeFieldsIn(v)).toEqual(redactCodes(v).found);
      expect(codeFieldsIn(v, 'envelope')).toEqual(redactCodes(v, 'envelope').found);
    }
    expect(codeFieldsIn(values[0])).toEqual(['data.vouchers.0.code', 'data.vouchers.1.voucher_code', 'data.nested.redemptionCode']);
    // Asked twice (the second answer remembered), a name gets the same answer.
    expect([isCodeField('pin_code'), isCodeField('pin_code'), isCodeField('country_code'), isCodeField('country_code')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('answers a field by its own name and its parent name the same each time, past the answers it remembers', () => {
    // Each pair is judged once and remembered; more pairs than are remembered (2,048) start afresh.
    const pairs = Array.from({ length: 3_000 }, (_, i) => i);
    const value = (i: number) => ({
      [`reason${i}`]: { code: 'R' },
      reason: { code: 'NOT_A_VOUCHER' },
      card: { number: '4111' },
      [`box${i}`]: { code: 'LEAK' },
    });
    const expected = pairs.map((i) => [`reason${i}.code`, 'card.number', `box${i}.code`]);
    for (let round = 0; round < 2; round++) expect(pairs.map((i) => codeFieldsIn(value(i)))).toEqual(expected);
    expect(codeFieldsIn({ error: { code: 'X' }, currency: { code: 'USD' }, product: { code: 'P' } })).toEqual(['product.code']);
  });

  it('safeJson parses back to the same value', () => {
    const v = { s: 'a\u0085b\u2028c\u{E0041}d\u00e9', n: [1, { x: null }] };
    const text = safeJson(v, 2);
    expect(text).not.toMatch(/[\u0085\u2028]/u);
    expect(JSON.parse(text)).toEqual(v);
  });
});

/** A delivery refused for its signature, at 09:30:02. */
function rejected(message: string, webhookId: string | null = null): ListenerActivity {
  return {
    kind: 'rejected',
    time: '2026-11-22T09:30:02.000Z',
    method: 'POST',
    path: '/webhooks',
    remote_address: null,
    webhook_id: webhookId,
    rejection: { status: 401, code: 'INVALID_SIGNATURE', reason: 'no_match', message },
  };
}

describe('listen display: refusals', () => {
  it('explains a refusal in full once; the same refusal again (a sender retrying) is one short line that reads alone: what is wrong, and when it was said in full', () => {
    const { io, err } = captureIO();
    const display = createDisplay(io, { json: false, color: false, colorErr: false });
    const refused = (id: string, message: string) => display.activity(rejected(message, id));
    const long = 'no signature matched: the delivery was signed with a secret this listener was not given; …';
    refused('wh_1', long);
    refused('wh_1', long);
    refused('wh_2', 'signature timestamp too old');
    display.flush();
    expect(err).toEqual([
      `09:30:02  rejected 401 INVALID_SIGNATURE  POST /webhooks (wh_1): ${long}\n`,
      '09:30:02  rejected 401 INVALID_SIGNATURE  POST /webhooks (wh_1): no signature matched (the same refusal as at 09:30:02, said in full there)\n',
      '09:30:02  rejected 401 INVALID_SIGNATURE  POST /webhooks (wh_2): signature timestamp too old\n',
    ]);
  });

  it('said again, a refusal ends at the end of its first clause, not at the dot of "e.g." nor inside parentheses or quotes', () => {
    const { io, err } = captureIO();
    const display = createDisplay(io, { json: false, color: false, colorErr: false });
    const twice = (message: string) => [0, 1].forEach(() => display.activity(rejected(message, 'wh_1')));
    twice('the sender signs other bytes, e.g. re-serialised JSON, i.e. not the raw body. Sign the raw body');
    twice('body is not valid JSON (Unexpected token: x); the signature matched');
    twice('webhook-timestamp is "1. 2; 3"; expected unix seconds');
    display.flush();
    const again = err
      .filter((_, i) => i % 2 === 1)
      .map((l) => l.replace(/^.*\(wh_1\): /, '').replace(/ \(the same refusal as at .*\n$/, ''));
    expect(again).toEqual([
      'the sender signs other bytes, e.g. re-serialised JSON, i.e. not the raw body',
      'body is not valid JSON (Unexpected token: x)',
      'webhook-timestamp is "1. 2; 3"',
    ]);
  });
});

describe('listen display: batched writes', () => {
  it('writes the lines of one turn of the event loop in one write per stream, in order, and nothing before', async () => {
    const writes: [string, string][] = [];
    const io = {
      env: {},
      stdout: { write: (s: string) => writes.push(['out', s]) },
      stderr: { write: (s: string) => writes.push(['err', s]) },
    } as unknown as IO;
    const display = createDisplay(io, { json: false, color: false, colorErr: false });
    display.activity({ kind: 'event', entry: entry(documentDelivered(11)) });
    display.activity({ kind: 'event', entry: entry(documentDelivered(12)) });
    display.activity(rejected('no match'));
    display.activity({ kind: 'event', entry: entry(documentDelivered(13)) });
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes.map(([stream, text]) => [stream, text.split('\n').length - 1])).toEqual([
      ['out', 2],
      ['err', 1],
      ['out', 1],
    ]);
    expect(writes[0]![1]).toMatch(new RegExp(`${hexEventId(11)}.*\\n.*${hexEventId(12)}.*\\n$`));
    expect(writes[2]![1]).toMatch(new RegExp(`${hexEventId(13)}`));
    // writeQueued(): at once, before a message of the command's own.
    display.activity({ kind: 'event', entry: entry(documentDelivered(14)) });
    display.writeQueued();
    expect(writes).toHaveLength(4);
    expect(writes[3]![1]).toMatch(new RegExp(`${hexEventId(14)}.*\n$`));
  });
});

describe('listen display: lines fit the terminal', () => {
  const created = entry(orderEvent(1));
  const issued = entry(voucherEvent(2));
  const drifted = entry(orderEvent(3, 'order.delivered', 'DELIVERED'), { drift: ['data.reference: missing'] });
  const forward = (n: number, extra: Partial<ForwardRecord> = {}): ForwardRecord => ({
    time: '2026-11-22T09:30:02.000Z',
    event_id: testId('evt', n),
    url: 'http://127.0.0.1:3000/webhooks',
    attempt: 1,
    max_attempts: 6,
    status: 200,
    duration_ms: 12,
    error: null,
    outcome: 'delivered',
    source: 'listen',
    ...extra,
  });
  /** The lines printed for these activities on a terminal `columns` wide (or piped, without). */
  function lines(
    columns: number | undefined,
    show: (display: ReturnType<typeof createDisplay>) => void,
    forwardWaitMs?: number,
    env: IO['env'] = {},
  ): string[] {
    const { io, out } = captureIO(env);
    const display = createDisplay(io, {
      json: false,
      color: false,
      colorErr: false,
      forwardWaitMs,
      width: columns === undefined ? undefined : () => columns,
    });
    show(display);
    display.flush();
    return out.map((l) => l.replace(/\n$/, ''));
  }
  const ids = (line: string) => line.match(/\b(?:evt|ord|vch)_[0-9A-Z]+/g) ?? [];

  it('piped, prints every field whole, as before', () => {
    const [line] = lines(undefined, (d) => d.activity({ kind: 'event', entry: created }));
    expect(line).toBe(`09:30:01  order.created              ${testId('evt', 1)}  ${testId('ord', 1)}  PENDING`);
  });

  it('at 80 columns leaves out the order id, keeps the event id whole and the types lined up', () => {
    const out = lines(80, (d) => {
      d.activity({ kind: 'event', entry: created });
      d.activity({ kind: 'event', entry: issued });
    });
    expect(out).toEqual([
      `09:30:01  order.created              ${testId('evt', 1)}  PENDING`,
      `09:30:01  voucher.issued             ${testId('evt', 2)}`,
    ]);
  });

  it('keeps marks and the forward result, shortening them before an id is cut', () => {
    const [marked] = lines(90, (d) => d.activity({ kind: 'event', entry: drifted }));
    expect(marked).toBe(`09:30:01  order.delivered  ${testId('evt', 3)}  (differs from contract)`);
    const [shorter] = lines(80, (d) => d.activity({ kind: 'event', entry: drifted }));
    expect(shorter).toBe(`09:30:01  order.delivered  ${testId('evt', 3)}  (differs)`);
    const [narrow] = lines(60, (d) => d.activity({ kind: 'event', entry: drifted }));
    expect(narrow).toBe(`09:30:01  order.delivered  evt_…${testId('evt', 3).slice(-17)}  (differs)`);
    expect(narrow).toHaveLength(60);
    const [forwarded] = lines(
      80,
      (d) => {
        d.activity({ kind: 'event', entry: created });
        d.forward(forward(1, { status: null, error: 'connection refused', outcome: 'retrying' }));
      },
      1000,
    );
    expect(forwarded).toBe(`09:30:01  order.created  ${testId('evt', 1)}  → retry 1/5: connection refused`.slice(0, 79) + '…');
  });

  it('where only ASCII is shown (LANG=C), its arrow and ellipses are ASCII, and the line still fits', () => {
    const [narrow] = lines(60, (d) => d.activity({ kind: 'event', entry: drifted }), undefined, { LANG: 'C' });
    expect(narrow).toBe(`09:30:01  order.delivered  evt_...${testId('evt', 3).slice(-15)}  (differs)`);
    expect(narrow).toHaveLength(60);
    const [forwarded] = lines(
      80,
      (d) => {
        d.activity({ kind: 'event', entry: created });
        d.forward(forward(1, { status: null, error: 'connection refused', outcome: 'retrying' }));
      },
      1000,
      { LANG: 'C' },
    );
    expect(forwarded).toBe(`09:30:01  order.created  ${testId('evt', 1)}  -> retry 1/5: connection refused`.slice(0, 77) + '...');
  });

  it('keeps what became of a forward (retry, gave up) when its line is cut to fit', () => {
    const failed = forward(1, { status: null, error: 'connection refused', outcome: 'failed', attempt: 6 });
    const [wide] = lines(120, (d) => d.forward(failed));
    expect(wide).toBe(`09:30:02  → connection refused, gave up after 6 attempts  ${testId('evt', 1)}`);
    for (const columns of [60, 70, 80]) {
      const [gaveUp] = lines(columns, (d) => d.forward(failed));
      expect(gaveUp, `${columns} columns`).toMatch(/^09:30:02 {2}→ gave up after 6/);
      expect(gaveUp!.length).toBeLessThanOrEqual(columns);
      const [retrying] = lines(columns, (d) => d.forward(forward(1, { status: 503, duration_ms: 7, outcome: 'retrying', attempt: 2 })));
      expect(retrying, `${columns} columns`).toMatch(/^09:30:02 {2}→ (503 in 7 ms, )?retry 2\/5/);
      expect(retrying!.length).toBeLessThanOrEqual(columns);
      const [cutShort] = lines(
        columns,
        (d) => {
          d.activity({ kind: 'event', entry: created });
          d.forward(failed);
        },
        1000,
      );
      expect(cutShort, `${columns} columns`).toMatch(/→ gave up/);
      expect(cutShort!.length).toBeLessThanOrEqual(columns);
    }
  });

  it('never cuts a number or an event type: the time a forward took is left out whole, an id cut instead', () => {
    const partial = entry(orderEvent(4, 'order.partially_delivered', 'PARTIALLY_DELIVERED'));
    const slow = { duration_ms: 2400 };
    for (const columns of [60, 70, 80]) {
      const out = lines(
        columns,
        (d) => {
          d.activity({ kind: 'event', entry: partial });
          d.forward(forward(4, slow));
          d.activity({ kind: 'event', entry: issued });
          d.forward(forward(2, slow));
          d.forward(forward(4, { ...slow, status: 503, outcome: 'retrying', attempt: 2 }));
          d.forward(forward(4, { ...slow, status: 503, outcome: 'failed', attempt: 6 }));
          d.activity({ kind: 'duplicate', received_at: partial.received_at, envelope: partial.envelope });
        },
        1000,
      );
      expect(out, `${columns} columns`).toHaveLength(5);
      for (const line of out) {
        expect(line.length, line).toBeLessThanOrEqual(columns);
        // A digit is never followed by an ellipsis: no number is cut.
        expect(line, line).not.toMatch(/\d…/);
      }
      expect(out[0], `${columns} columns`).toMatch(/ order\.partially_delivered {2}evt_\S+ {2}→ 200( in 2400 ms)?$/);
      expect(out[1], `${columns} columns`).toMatch(/ voucher\.issued {2}evt_\S+ {2}→ 200( in 2400 ms)?$/);
      expect(out[2], `${columns} columns`).toMatch(/→ (503 in 2400 ms, retry 2\/5|retry 2\/5: 503( in 2400 ms)?) {2}evt_/);
      expect(out[3], `${columns} columns`).toMatch(
        /→ (503 in 2400 ms, gave up after 6 attempts|gave up after 6 attempts: 503( in 2400 ms)?) {2}evt_/,
      );
      expect(out[4], `${columns} columns`).toMatch(/duplicate of evt_\S+( \(order\.partially_delivered\))?(: already stored|$)/);
    }
    const [cut] = lines(
      70,
      (d) => {
        d.activity({ kind: 'event', entry: partial });
        d.forward(forward(4, slow));
      },
      1000,
    );
    expect(cut).toBe(`09:30:01  order.partially_delivered  evt_…${testId('evt', 4).slice(-21)}  → 200`);
    expect(cut).toHaveLength(70);
  });

  it('down to 40 columns an order.partially_delivered line fits: the time, then the event id, then parts of the forward result are left out whole', () => {
    const partial = entry(orderEvent(4, 'order.partially_delivered', 'PARTIALLY_DELIVERED'));
    const slow = { duration_ms: 2400 };
    const results: Partial<ForwardRecord>[] = [
      slow,
      { ...slow, status: 503, outcome: 'retrying', attempt: 2 },
      { ...slow, status: 503, outcome: 'failed', attempt: 6 },
      { ...slow, status: 400, outcome: 'failed' },
      { status: null, error: 'connection refused', outcome: 'retrying', attempt: 3 },
      { status: null, error: 'cancelled', outcome: 'cancelled', attempt: 2 },
    ];
    const shown = (columns: number) => [
      ...results.flatMap((r) =>
        lines(
          columns,
          (d) => {
            d.activity({ kind: 'event', entry: partial });
            d.forward(forward(4, r));
          },
          1000,
        ),
      ),
      // Stopped before the first result came: the line says so.
      ...lines(columns, (d) => d.activity({ kind: 'event', entry: partial }), 1000),
    ];
    for (const columns of [40, 41, 45, 50, 55]) {
      const out = shown(columns);
      expect(out, `${columns} columns`).toHaveLength(results.length + 1);
      for (const line of out) {
        expect(line.length, line).toBeLessThanOrEqual(columns);
        expect(line, line).toContain('order.partially_delivered');
        // A digit is never followed by an ellipsis: no number is cut.
        expect(line, line).not.toMatch(/\d…/);
      }
    }
    expect(shown(45)).toEqual([
      '09:30:01  order.partially_delivered  → 200',
      'order.partially_delivered  → retry 2/5: 503',
      'order.partially_delivered  → gave up: 503',
      'order.partially_delivered  → not retried: 400',
      'order.partially_delivered  → retry 3/5',
      'order.partially_delivered  → stopped',
      'order.partially_delivered  → stopped',
    ]);
    expect(shown(40)).toEqual([
      'order.partially_delivered  → 200',
      'order.partially_delivered  → retry: 503',
      'order.partially_delivered  → gave up',
      'order.partially_delivered  → not retried',
      'order.partially_delivered  → retry 3/5',
      'order.partially_delivered  → stopped',
      'order.partially_delivered  → stopped',
    ]);
  });

  it('cuts an id only when nothing else is left, in its middle with an ellipsis, its end kept', () => {
    for (const columns of [40, 50, 60]) {
      const out = lines(
        columns,
        (d) => {
          d.activity({ kind: 'event', entry: created });
          d.activity({ kind: 'duplicate', received_at: created.received_at, envelope: created.envelope });
          d.forward(forward(1));
          d.forward(forward(2, { status: null, error: 'connection refused', outcome: 'failed', attempt: 6 }));
        },
        1000,
      );
      // The event's line waits for its first forward result; the other is a line of its own.
      expect(out).toHaveLength(3);
      expect(out[0]).toMatch(/duplicate of evt_/);
      expect(out[1]).toMatch(/order\.created {2}evt_\S+ {2}→ 200/);
      expect(out[2]).toMatch(/→ gave up/);
      for (const line of out) {
        expect(line.length, line).toBeLessThanOrEqual(columns);
        // No id cut without a marker: every id is whole, or evt_… and its end.
        expect(
          ids(line).every((id) => id === testId('evt', 1) || id === testId('evt', 2)),
          line,
        ).toBe(true);
        const cut = /evt_…([0-9A-Z]+)/.exec(line);
        if (cut)
          expect(
            [testId('evt', 1), testId('evt', 2)].some((id) => id.endsWith(cut[1]!)),
            line,
          ).toBe(true);
        expect(line).toMatch(/evt_(…)?[0-9A-Z]{6,}/);
      }
    }
  });

  it('reads the width for each line: a terminal resized while listening gets lines of its new width', () => {
    const { io, out } = captureIO();
    let columns = 120;
    const display = createDisplay(io, { json: false, color: false, colorErr: false, width: () => columns });
    display.activity({ kind: 'event', entry: created });
    display.flush();
    columns = 80;
    display.activity({ kind: 'event', entry: created });
    display.flush();
    expect(out[0]).toContain(testId('ord', 1));
    expect(out[1]).not.toContain(testId('ord', 1));
  });
});
