/**
 * Every RFC 3339 spelling of UTC is UTC: `+00:00`, `-00:00`, `+0000`, a lower-case `z` or
 * `t`, any fraction of a second. Answers and webhook envelopes carrying them conform; a
 * real offset is a difference reported by its offset, and shown times stay correct.
 */
import { describe, expect, it } from 'vitest';
import { isUtcTimestamp, readTimestamp } from '../../src/contract/timestamp.js';
import { endpointSchemas, validateResponse } from '../../src/core/http/validate.js';
import { contractDrift } from '../../src/listener/envelope.js';
import { formatTime } from '../../src/core/output/format.js';

const UTC = [
  '2026-11-25T10:00:00Z',
  '2026-11-25T10:00:00+00:00',
  '2026-11-25T10:00:00-00:00',
  '2026-11-25T10:00:00+0000',
  '2026-11-25T10:00:00z',
  '2026-11-25t10:00:00Z',
  '2026-11-25T10:00:00.123456+00:00',
  '2026-11-25T10:00:00.5z',
];

const order = (at: string) => ({
  order_id: 'ord_01M85MNSA33429NM3GG6S8ZYV0',
  status: 'DELIVERED',
  items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'cache',
  created_at: at,
  updated_at: at,
  vouchers: [],
  timeline: [{ status: 'DELIVERED', at, note: null }],
});

async function driftOf(at: string) {
  const endpoint = await endpointSchemas('getOrder');
  const data = order(at);
  return validateResponse({ method: 'GET', path: '/orders/ord_1', status: 200, data, text: JSON.stringify(data), traceId: 't', endpoint })
    .drift;
}

describe('RFC 3339 spellings of UTC', () => {
  it('reads each spelling of UTC as UTC, and a real offset as that offset', () => {
    for (const s of UTC) expect(isUtcTimestamp(s), s).toBe(true);
    expect(readTimestamp('2026-11-25T10:00:00+02:00')?.offset).toBe('+02:00');
    expect(readTimestamp('2026-11-25T10:00:00-0530')?.offset).toBe('-05:30');
    for (const s of [
      '2026-11-25T10:00:00',
      '2026-13-25T10:00:00Z',
      '2026-11-25T24:00:00Z',
      '2026-11-25 10:00:00Z',
      'yesterday',
      1764064800,
    ])
      expect(readTimestamp(s), String(s)).toBeUndefined();
  });

  it('an order whose times are UTC under any spelling conforms: no contract warning', async () => {
    for (const s of UTC) expect(await driftOf(s), s).toBeUndefined();
  });

  it('a real offset is a difference, named by its offset and never fatal', async () => {
    const drift = await driftOf('2026-11-25T12:00:00+02:00');
    expect(drift?.kind).toBe('shape');
    expect(drift?.issues).toContain('created_at: a time at UTC offset +02:00, not in UTC');
    expect(drift?.message).not.toContain('2026-11-25T12:00:00');
  });

  it('a webhook envelope whose created_at is UTC under another spelling has no drift; an offset is marked', () => {
    const envelope = (created_at: string) => ({ event: 'wallet.topped_up', event_id: 'evt_1', created_at, data: {} });
    for (const s of UTC) expect(contractDrift(envelope(s)), s).toEqual([]);
    expect(contractDrift(envelope('2026-11-25T12:00:00+02:00'))).toEqual(['created_at: a time at UTC offset +02:00, not in UTC']);
  });

  it('shows each spelling of UTC as UTC, and a real offset with its offset', () => {
    for (const s of UTC) expect(formatTime(s), s).toBe('2026-11-25 10:00:00Z');
    expect(formatTime('2026-11-25T12:00:00.250+02:00')).toBe('2026-11-25 12:00:00+02:00');
    expect(formatTime('2026-11-25T12:00:00+0200')).toBe('2026-11-25 12:00:00+02:00');
  });
});
