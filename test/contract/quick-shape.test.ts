/**
 * Quick shapes (src/contract/quick-shape.ts) say "conforms" only where zod accepts the body
 * and returns it unchanged: checked on bodies made from each response schema, valid ones
 * and the same with one random change (fast-check prints the seed of any failure).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import { conforms, quickShapeOf, responseShapesOf, type QuickShape } from '../../src/contract/quick-shape.js';
import { ORDER_REQUEST_SHAPE, RESPONSE_SHAPES } from '../../src/contract/shapes.js';
import { CreateOrderRequest } from '../../src/contract/orders.js';
import { requestShapeOf } from '../../src/contract/quick-shape.js';
import { checkOrderRequest } from '../../src/commands/orders/order-input.js';
import { UsageError } from '../../src/core/errors/index.js';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { contractOf } from '../../src/listener/envelope.js';
import { quickValidate, validateResponse } from '../../src/core/http/validate.js';

/** Values a quick shape accepts (so also zod, unless the shape is wrong). */
function valid(shape: QuickShape): fc.Arbitrary<unknown> {
  switch (shape.k) {
    case 'any':
      return fc.jsonValue();
    case 'zod':
      return fc.jsonValue();
    case 'str': {
      let a: fc.Arbitrary<string> = shape.re?.length
        ? fc.stringMatching(new RegExp(shape.re[0]![0], shape.re[0]![1]))
        : fc.string({ minLength: shape.min ?? 0, maxLength: Math.max(shape.min ?? 0, Math.min(shape.max ?? 12, 12)) });
      if (shape.pre !== undefined) a = a.map((s) => shape.pre + s);
      return a;
    }
    case 'num': {
      const lo = Math.max(...(shape.gt ?? []).map(([b]) => b), -1e6);
      const hi = Math.min(...(shape.lt ?? []).map(([b]) => b), 1e6);
      const inBounds = (n: number) =>
        (shape.gt ?? []).every(([b, inc]) => (inc ? n >= b : n > b)) && (shape.lt ?? []).every(([b, inc]) => (inc ? n <= b : n < b));
      const a = shape.int ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }) : fc.double({ min: lo, max: hi, noNaN: true });
      return a.filter(inBounds);
    }
    case 'bool':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'enum':
      return fc.constantFrom(...shape.v);
    case 'arr':
      return fc.array(valid(shape.e), { minLength: shape.min ?? 0, maxLength: Math.max(shape.min ?? 0, Math.min(shape.max ?? 3, 3)) });
    case 'obj': {
      const keys = Object.keys(shape.p);
      const required = keys.filter((k) => shape.p[k]!.k !== 'opt');
      const model = Object.fromEntries(keys.map((k) => [k, valid(shape.p[k]!)]));
      const base = fc.record(model, { requiredKeys: required });
      if (shape.mode !== 'loose') return base;
      return fc.tuple(base, fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue(), { maxKeys: 2 })).map(([o, extra]) => {
        const out = { ...o } as Record<string, unknown>;
        for (const [k, v] of Object.entries(extra)) if (!(k in shape.p) && k !== '__proto__') out[k] = v;
        return out;
      });
    }
    case 'rec':
      return fc.dictionary(fc.string({ maxLength: 4 }), valid(shape.v), { maxKeys: 3 });
    case 'opt':
      return fc.option(valid(shape.i), { nil: undefined });
    case 'nul':
      return fc.option(valid(shape.i), { nil: null });
    case 'or':
      return fc.oneof(...shape.o.map(valid));
  }
}

/** One random change somewhere in a JSON value: a key removed or added, a value replaced. */
function mutate(value: unknown, choice: number, replacement: unknown): unknown {
  const containers: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      containers.push({ parent: v as Record<string, unknown>, key: Array.isArray(v) ? Number(k) : k });
      walk(x);
    }
  };
  const copy = structuredClone(value);
  walk(copy);
  if (containers.length === 0) return replacement;
  const { parent, key } = containers[choice % containers.length]!;
  const action = choice % 3;
  if (action === 0 && !Array.isArray(parent)) delete parent[key as string];
  else if (action === 1 && !Array.isArray(parent)) (parent as Record<string, unknown>)[`${String(key)}_x`] = replacement;
  else (parent as Record<string | number, unknown>)[key] = replacement;
  return copy;
}

const bodies = ENDPOINTS.flatMap((e) =>
  Object.entries(e.responses)
    .filter((entry): entry is [string, z.ZodType] => entry[1] !== null)
    .map(([status, schema]) => ({ id: e.id, status: Number(status), schema, shape: quickShapeOf(schema) })),
);

/** Zod's verdict and data, the reference. */
function zodSays(schema: z.ZodType, body: unknown) {
  const r = schema.safeParse(body);
  return r.success ? { ok: true as const, data: r.data } : { ok: false as const };
}

describe('quick shapes', () => {
  it('shapes.ts is the quick shape of every response schema (if not, run `npm run shapes`)', () => {
    expect(RESPONSE_SHAPES).toEqual(responseShapesOf(ENDPOINTS));
  });

  it('shapes.ts holds the order request without its one refinement (if not, run `npm run shapes`)', () => {
    expect(ORDER_REQUEST_SHAPE).toEqual(requestShapeOf(CreateOrderRequest));
    // A second refinement must be checked by hand in checkOrderRequest before this may change.
    expect(ORDER_REQUEST_SHAPE.refinements).toBe(1);
  });

  it('checkOrderRequest accepts exactly what zod accepts, unchanged, and refuses the rest (quick path or not)', async () => {
    await fc.assert(
      fc.asyncProperty(
        valid(ORDER_REQUEST_SHAPE.shape),
        fc.nat(),
        fc.jsonValue(),
        fc.boolean(),
        async (body, choice, replacement, change) => {
          const candidate = change ? mutate(body, choice, replacement) : body;
          const reference = zodSays(CreateOrderRequest, candidate);
          const ours = await checkOrderRequest(candidate, true).then(
            (data) => ({ ok: true as const, data }),
            (e: unknown) => {
              expect(e).toBeInstanceOf(UsageError);
              return { ok: false as const };
            },
          );
          expect(ours).toEqual(reference);
        },
      ),
      { numRuns: 300 },
    );
  });

  for (const type of [...EVENT_TYPES, 'some.new_type']) {
    const contract = contractOf(type) as z.ZodType;
    const shape = quickShapeOf(contract);
    it(`the listener's ${type} contract: known to quick shapes, and recognised only where zod accepts the envelope`, () => {
      expect(JSON.stringify(shape)).not.toContain('"k":"zod"');
      const envelope = valid(shape).map((e) => ({ event: type, ...(e as object) }));
      fc.assert(
        fc.property(envelope, fc.nat(), fc.jsonValue(), fc.boolean(), (body, choice, replacement, change) => {
          const candidate = change ? mutate(body, choice, replacement) : body;
          if (!change) expect(conforms(shape, candidate)).toBe(true);
          if (conforms(shape, candidate)) expect(contract.safeParse(candidate).success).toBe(true);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('know every rule of the contract: no response schema needs zod to recognise a conforming body', () => {
    const needZod = bodies.filter((b) => JSON.stringify(b.shape).includes('"k":"zod"')).map((b) => `${b.id} ${b.status}`);
    expect(needZod).toEqual([]);
  });

  for (const b of bodies) {
    it(`${b.id} ${b.status}: a body made valid is recognised, and zod returns it unchanged`, () => {
      fc.assert(
        fc.property(valid(b.shape), (body) => {
          expect(conforms(b.shape, body)).toBe(true);
          expect(zodSays(b.schema, body)).toEqual({ ok: true, data: body });
        }),
        { numRuns: 60 },
      );
    });

    it(`${b.id} ${b.status}: a body changed at random is recognised only where zod accepts it unchanged`, () => {
      fc.assert(
        fc.property(valid(b.shape), fc.nat(), fc.jsonValue(), (body, choice, replacement) => {
          const changed = mutate(body, choice, replacement);
          if (conforms(b.shape, changed)) expect(zodSays(b.schema, changed)).toEqual({ ok: true, data: changed });
        }),
        { numRuns: 150 },
      );
    });
  }

  it('leave to zod what they cannot decide: a key "__proto__", a union, a URL format, a refinement', async () => {
    const { z } = await import('zod');
    const loose = quickShapeOf(z.looseObject({ a: z.string() }));
    expect(conforms(loose, JSON.parse('{"a":"x","__proto__":{"b":1}}'))).toBe(false);
    expect(conforms(quickShapeOf(z.url()), 'https://example.test/')).toBe(false);
    expect(conforms(quickShapeOf(z.string().refine((s) => s !== 'x')), 'y')).toBe(false);
    expect(conforms(quickShapeOf(z.string().default('x')), 'y')).toBe(false);
    const stripped = quickShapeOf(z.object({ a: z.string() }));
    expect(conforms(stripped, { a: 'x' })).toBe(true);
    expect(conforms(stripped, { a: 'x', b: 1 })).toBe(false); // zod would drop b
    expect(conforms(quickShapeOf(z.strictObject({ a: z.string() })), { a: 'x', b: 1 })).toBe(false);
    expect(conforms(quickShapeOf(z.string().startsWith('whsec_')), 'whsec_\nx')).toBe(true);
    expect(z.string().startsWith('whsec_').safeParse('whsec_\nx').success).toBe(true);
  });

  it('quickValidate gives what validateResponse gives for a conforming answer, and nothing for one that differs', () => {
    const list = ENDPOINTS.find((e) => e.id === 'listWallets')!;
    const body = {
      data: [{ currency: 'USD', available: 10, reserved: 0, updated_at: '2026-11-22T09:30:00Z' }],
      has_more: false,
      next_cursor: null,
    };
    const target = {
      method: 'GET',
      path: '/wallets',
      status: 200,
      data: body,
      text: JSON.stringify(body),
      traceId: undefined,
      endpoint: list,
    };
    const full = validateResponse(target);
    if (full.drift) throw new Error(`the sample wallet differs from the contract: ${full.drift.message}`);
    expect(quickValidate('listWallets', true, 200, body)).toEqual(full);
    const bare = [body.data[0]];
    expect(quickValidate('listWallets', true, 200, bare)).toBeUndefined();
    expect(quickValidate('listWallets', true, 201, body)).toBeUndefined();
    expect(quickValidate('deleteWebhook', false, 204, undefined)).toEqual({ data: undefined });
  });
});
