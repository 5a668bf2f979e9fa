/** The inbox line and raw-body fields made from what the listener already has. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryLine, rawBodyFieldsOf, rawBodyOf, type InboxEntry } from '../../src/core/journal/inbox.js';

function fieldsFor(body: Buffer) {
  const text = body.toString('utf8');
  return rawBodyFieldsOf(body, text, JSON.stringify(JSON.parse(text)));
}

describe('inbox lines', () => {
  it('writes exactly JSON.stringify(entry) when given the envelope already serialised', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.string(), { nil: undefined }),
        fc.boolean(),
        (data, raw, drift) => {
          const entry: InboxEntry = {
            received_at: '2026-11-22T09:30:01.000Z',
            envelope: { event: 'order.delivered', event_id: 'evt_1', created_at: '2026-11-22T09:30:00Z', data },
            meta: {
              signature_timestamp: 1,
              webhook_id: null,
              remote_address: '127.0.0.1',
              ...(drift ? { drift: ['data.reference: missing'] } : {}),
            },
            ...(raw === undefined ? {} : { raw_body: raw }),
          };
          expect(entryLine(entry, JSON.stringify(entry.envelope))).toBe(JSON.stringify(entry));
        },
      ),
    );
  });

  it('keeps no raw body for compact JSON, the text for other UTF-8, base64 for bytes that are not UTF-8', () => {
    const compact = Buffer.from('{"event":"x","n":25}');
    expect(fieldsFor(compact)).toEqual({});
    const spaced = Buffer.from('{"event": "x", "n": 25.0}');
    expect(fieldsFor(spaced)).toEqual({ raw_body: '{"event": "x", "n": 25.0}' });
    // A lone 0xff decodes to U+FFFD: the text alone cannot give the bytes back.
    const notUtf8 = Buffer.concat([Buffer.from('{"event":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const fields = fieldsFor(notUtf8);
    expect(fields).toEqual({ raw_body_base64: notUtf8.toString('base64') });
    expect(rawBodyOf({ ...fields } as InboxEntry).equals(notUtf8)).toBe(true);
    // The same when the decoded text happens to be the serialised envelope.
    const text = notUtf8.toString('utf8');
    expect(rawBodyFieldsOf(notUtf8, text, text)).toEqual({ raw_body_base64: notUtf8.toString('base64') });
  });
});
