import { describe, expect, it } from 'vitest';
import { endpointSchemas, compileAnswerChecks, validateResponse } from '../../../src/core/http/validate.js';
import { systemIds } from '../../../src/core/run/ids.js';

// An answer as the sandbox gives it (the code and PIN are sandbox fakes).
const order = {
  order_id: 'ord_01M85MNSA33429NM3GG6S8ZYV0',
  status: 'DELIVERED',
  items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  reference: 'r-1',
  fulfilled_from: 'cache',
  created_at: '2026-11-24T02:03:07.459Z',
  updated_at: '2026-11-24T02:03:07.459Z',
  vouchers: [
    {
      voucher_id: 'vch_01M85MNSA33429NM3GG6S8ZYV2',
      product_id: 'sbx-instant',
      denomination: 10,
      expiry: '2027-11-24',
      status: 'ISSUED',
      code: 'SBX-50ZA-QV38-VSS7',
      pin: '0145',
    },
  ],
  timeline: [
    { status: 'PENDING', at: '2026-11-24T02:03:07.459Z', note: 'accepted' },
    { status: 'DELIVERED', at: '2026-11-24T02:03:07.459Z', note: '1 voucher(s) delivered from cache' },
  ],
};

async function verdicts(): Promise<unknown[]> {
  const endpoint = await endpointSchemas('createOrder');
  const bodies = [order, { ...order, status: 'TELEPORTED' }, { ...order, total_amount: 'ten' }, (({ currency: _c, ...o }) => o)(order)];
  return bodies.map((data) => {
    const v = validateResponse({ method: 'POST', path: '/orders', status: 201, data, text: JSON.stringify(data), traceId: 't', endpoint });
    return v.drift ? { kind: v.drift.kind, issues: v.drift.issues } : 'ok';
  });
}

describe('answer checks of a bulk run', () => {
  it('compiled checks find exactly what interpreted ones find', async () => {
    const interpreted = await verdicts();
    expect(interpreted[0]).toBe('ok');
    expect(interpreted.slice(1).every((v) => v !== 'ok')).toBe(true);
    compileAnswerChecks();
    expect(await verdicts()).toEqual(interpreted);
  });
});

describe('run ids', () => {
  it('trace and span ids from the pooled bytes are lowercase hex of their length and never repeat', () => {
    const traces = Array.from({ length: 1000 }, () => systemIds.traceId());
    const spans = Array.from({ length: 1000 }, () => systemIds.spanId());
    for (const t of traces) expect(t).toMatch(/^[0-9a-f]{32}$/);
    for (const s of spans) expect(s).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(traces).size).toBe(traces.length);
    expect(new Set(spans).size).toBe(spans.length);
  });
});

describe('a long list that differs from the contract', () => {
  it('50,000 records each missing fields: a drift naming them, not a stack overflow', async () => {
    // As a one-shot command checks (interpreted); zod's compiled parsers did not overflow.
    compileAnswerChecks(false);
    const endpoint = await endpointSchemas('listProducts');
    const data = { data: Array.from({ length: 50_000 }, (_, i) => ({ product_id: `p${i}`, name: 'x' })) };
    const v = validateResponse({ method: 'GET', path: '/products', status: 200, data, text: '', traceId: 't', endpoint });
    expect(v.drift?.issues).toEqual(expect.arrayContaining(['currency: missing (50000 of 50000 records)']));
    expect((v.data as { data: unknown[] }).data).toHaveLength(50_000);
    // 350,000 issues checked without compiled parsers: seconds of CPU, more on a loaded machine.
  }, 60_000);
});
