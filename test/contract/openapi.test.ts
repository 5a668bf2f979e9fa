import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, type Endpoint } from '../../src/contract/endpoints.js';
import { ERRORS, EXTENSION_ERROR_CODES, type ErrorCode } from '../../src/contract/errors.js';
import { EVENT_TYPES, FORBIDDEN_EVENT_FIELDS } from '../../src/contract/events.js';
import { buildOpenApi } from '../../src/contract/openapi.js';

type Json = Record<string, any>;

const checkedInText = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const endpoints = ENDPOINTS as readonly Endpoint[];
let doc: Json;

beforeAll(() => {
  doc = buildOpenApi() as Json;
});

function op(e: Endpoint): Json {
  return doc.paths[e.path]?.[e.method.toLowerCase()];
}

function resolve(node: Json): Json {
  if (typeof node.$ref !== 'string') return node;
  const parts = (node.$ref as string).replace(/^#\//, '').split('/');
  let target: any = doc;
  for (const p of parts) target = target?.[p];
  if (target === undefined) throw new Error(`unresolved $ref ${node.$ref}`);
  return target as Json;
}

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('docs/openapi.json', () => {
  it('is current: equal to buildOpenApi() (if not, run `npm run openapi` and commit docs/openapi.json)', () => {
    const checkedIn = JSON.parse(checkedInText) as unknown;
    expect(checkedIn, 'docs/openapi.json is stale: run `npm run openapi`').toEqual(doc);
    expect(checkedInText, 'docs/openapi.json is not formatted as `npm run openapi` writes it: run `npm run openapi`').toBe(
      JSON.stringify(doc, null, 2) + '\n',
    );
  });

  it('is deterministic: two builds give the same bytes', () => {
    expect(JSON.stringify(buildOpenApi())).toBe(JSON.stringify(buildOpenApi()));
  });

  it('is valid OpenAPI 3.1 according to @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(checkedInText) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('resolves every $ref inside the document', () => {
    for (const r of collectRefs(doc)) {
      expect(r.startsWith('#/'), r).toBe(true);
      expect(() => resolve({ $ref: r }), r).not.toThrow();
    }
  });
});

describe('document header', () => {
  it('declares 3.1.0, version 1.0.0, and names extensions and planned parts', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.description).toMatch(/Extensions/);
    expect(doc.info.description).toMatch(/Planned/);
    expect(doc.info.description).toContain('GET /orders/{order_id}/vouchers');
  });

  it('has {base_url} as a server variable defaulting to the sandbox', () => {
    expect(doc.servers).toEqual([
      expect.objectContaining({
        url: '{base_url}',
        variables: { base_url: expect.objectContaining({ default: 'http://127.0.0.1:4010/api/v1' }) },
      }),
    ]);
  });

  it('declares the identity headers as apiKey security schemes required everywhere', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.ApiSecret).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Secret' });
    expect(doc.security).toEqual([{ ApiKey: [], ApiSecret: [] }]);
  });

  it('names a component schema for every resource, the error envelope, the event envelope and each payload', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Category',
      'Product',
      'ProductDetail',
      'ExpiryPolicy',
      'Availability',
      'Order',
      'OrderVoucher',
      'TimelineEntry',
      'OrderCodes',
      'VoucherCode',
      'OrderStatus',
      'CreateOrderRequest',
      'Wallet',
      'Transaction',
      'TransactionType',
      'Payout',
      'CreatePayoutRequest',
      'WebhookEndpoint',
      'RegisterWebhookRequest',
      'EventType',
      'ReconciliationReport',
      'Drift',
      'Error',
      'ErrorDetail',
      'EventEnvelope',
      'OrderEventData',
      'OrderDeliveredData',
      'OrderPartiallyDeliveredData',
      'OrderCancelledData',
      'OrderRefundedData',
      'VoucherIssuedData',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(names).toEqual([...names].sort());
  });
});

describe('paths', () => {
  it('has every endpoint of the table with its method, operationId and summary, and nothing else', () => {
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const method of Object.keys(item as Json)) documented.push(`${method.toUpperCase()} ${path}`);
    }
    expect(documented.sort()).toEqual(endpoints.map((e) => `${e.method} ${e.path}`).sort());
    for (const e of endpoints) {
      expect(op(e), `${e.method} ${e.path}`).toMatchObject({ operationId: e.id, summary: e.summary });
    }
  });

  it('gives every operation and webhook a unique operationId', () => {
    const ids = [
      ...Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json).map((o) => (o as Json).operationId as string)),
      ...Object.values(doc.webhooks as Json).map((item) => (item as Json).post.operationId as string),
    ];
    expect(ids.length).toBe(endpoints.length + EVENT_TYPES.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path and query parameter with a schema', () => {
    for (const e of endpoints) {
      const params = (op(e).parameters as Json[]).map(resolve);
      const inPath = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(
        params.filter((p) => p.in === 'path').map((p) => p.name),
        e.id,
      ).toEqual(inPath);
      for (const p of params.filter((x) => x.in === 'path')) expect(p.required).toBe(true);
      expect(
        params.filter((p) => p.in === 'query').map((p) => p.name),
        e.id,
      ).toEqual(Object.keys(e.query ?? {}));
      for (const p of params) expect(p.schema, `${e.id} ${p.name}`).toBeTypeOf('object');
    }
  });

  it('puts the signature headers on signed operations only, and Idempotency-Key as the table says', () => {
    for (const e of endpoints) {
      const names = (op(e).parameters as Json[])
        .map(resolve)
        .filter((p) => p.in === 'header')
        .map((p) => `${p.name}${p.required ? '!' : '?'}`);
      expect(names.includes('X-Timestamp!') && names.includes('X-Signature!'), e.id).toBe(e.signed);
      const idem = e.idempotency === 'required' ? 'Idempotency-Key!' : e.idempotency === 'optional' ? 'Idempotency-Key?' : undefined;
      expect(
        names.filter((n) => n.startsWith('Idempotency-Key')),
        e.id,
      ).toEqual(idem ? [idem] : []);
      expect(op(e)['x-signed']).toBe(e.signed);
      expect(op(e)['x-idempotency']).toBe(e.idempotency);
    }
  });

  it('has a request body exactly where the table has one', () => {
    for (const e of endpoints) {
      const body = op(e).requestBody as Json | undefined;
      expect(body !== undefined, e.id).toBe(e.request !== undefined);
      if (body) expect(body.content['application/json'].schema, e.id).toBeTypeOf('object');
    }
    expect(op(endpoints.find((e) => e.id === 'createOrder')!).requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateOrderRequest',
    });
  });

  it('documents every success response: 201 and 202 for orders, 204 without a body', () => {
    for (const e of endpoints) {
      const responses = op(e).responses as Json;
      for (const [status, schema] of Object.entries(e.responses)) {
        const r = responses[status] as Json;
        expect(r, `${e.id} ${status}`).toBeDefined();
        expect(r.content === undefined, `${e.id} ${status}`).toBe(schema === null);
        expect(r.headers['X-Trace-ID']).toEqual({ $ref: '#/components/headers/X-Trace-ID' });
        for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) expect(r.headers[h], `${e.id} ${h}`).toBeDefined();
        expect(r.headers['Idempotent-Replayed'] !== undefined, `${e.id} ${status}`).toBe(e.idempotency !== 'none');
      }
    }
    const create = op(endpoints.find((e) => e.id === 'createOrder')!).responses as Json;
    expect(create['201'].description).toMatch(/cache-hit/i);
    expect(create['202'].description).toMatch(/PENDING/);
    expect(create['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Order' });
    const del = op(endpoints.find((e) => e.id === 'deleteWebhook')!).responses as Json;
    expect(del['204'].content).toBeUndefined();
  });

  it('documents every error of each endpoint under its status, with the Error schema and its code named', () => {
    for (const e of endpoints) {
      const responses = op(e).responses as Json;
      for (const code of e.errors) {
        const status = String(ERRORS[code].status);
        const r = responses[status] as Json;
        expect(r, `${e.id} ${code}`).toBeDefined();
        expect(r['x-error-codes'], `${e.id} ${code}`).toContain(code);
        expect(r.description, `${e.id} ${code}`).toContain(code);
        expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(resolve(r.content['application/json'].examples[code]).value.error).toMatchObject({ code, name: ERRORS[code].name });
      }
      const errorStatuses = Object.keys(responses).filter((s) => Number(s) >= 400);
      const expected = [...new Set(e.errors.map((c) => String(ERRORS[c].status)))];
      expect(errorStatuses.sort(), e.id).toEqual(expected.sort());
    }
  });

  it('puts Retry-After on 429, 503 and the idempotency-in-progress 409 only', () => {
    for (const e of endpoints) {
      for (const [status, r] of Object.entries(op(e).responses as Record<string, Json>)) {
        const codes = (r['x-error-codes'] ?? []) as ErrorCode[];
        const expected = status === '429' || status === '503' || (status === '409' && codes.includes('IDEMPOTENCY_KEY_IN_PROGRESS'));
        expect(r.headers['Retry-After'] !== undefined, `${e.id} ${status}`).toBe(expected);
      }
    }
  });

  it('marks extensions and planned endpoints', () => {
    for (const e of endpoints) {
      expect(op(e)['x-extension'] === true, e.id).toBe(e.extension);
      expect(op(e)['x-planned'] === true, e.id).toBe(e.planned === true);
    }
    expect(
      endpoints
        .filter((e) => e.extension)
        .map((e) => `${e.method} ${e.path}`)
        .sort(),
    ).toEqual(['DELETE /webhooks', 'GET /orders', 'GET /orders/{order_id}/vouchers', 'GET /webhooks', 'POST /orders/{order_id}/cancel']);
    expect(op(endpoints.find((e) => e.id === 'getReconciliation')!)['x-planned']).toBe(true);
  });
});

describe('error catalog', () => {
  it('documents every code of ERRORS with its status and name', () => {
    const catalog = doc['x-error-catalog'] as Json[];
    expect(catalog.map((c) => c.code)).toEqual(Object.keys(ERRORS));
    for (const entry of catalog) {
      const code = entry.code as ErrorCode;
      expect(entry).toMatchObject({ status: ERRORS[code].status, name: ERRORS[code].name });
      expect(entry.when).toBeTypeOf('string');
      expect(entry.extension === true).toBe(EXTENSION_ERROR_CODES.includes(code));
      expect(doc.components.examples[code].value.error).toMatchObject({ code, name: ERRORS[code].name });
    }
  });

  it('uses every code in some operation, except 405 which any path may answer', () => {
    const used = new Set(
      endpoints.flatMap((e) =>
        Object.values(op(e).responses as Record<string, Json>).flatMap((r) => (r['x-error-codes'] ?? []) as string[]),
      ),
    );
    const unused = Object.keys(ERRORS).filter((c) => !used.has(c));
    expect(unused).toEqual(['METHOD_NOT_ALLOWED']);
  });
});

describe('webhooks', () => {
  it('has one webhook per event type with the X-Webhook-* headers and its own envelope', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post as Json;
      expect(post.operationId).toMatch(/^on[A-Z]/);
      expect((post.parameters as Json[]).map(resolve).map((p) => `${p.in}:${p.name}`)).toEqual([
        'header:X-Webhook-Id',
        'header:X-Webhook-Timestamp',
        'header:X-Webhook-Signature',
      ]);
      const schema = post.requestBody.content['application/json'].schema as Json;
      expect(schema.properties.event).toEqual({ type: 'string', const: type });
      expect(schema.properties.data.$ref).toMatch(/^#\/components\/schemas\/\w+Data$/);
      expect(post.responses['2XX']).toBeDefined();
      expect(post.security).toEqual([]);
    }
  });

  it('never puts a code or pin field in an event payload schema', () => {
    const names = new Set<string>();
    const walk = (s: unknown): void => {
      if (Array.isArray(s)) return s.forEach(walk);
      if (!s || typeof s !== 'object') return;
      const o = s as Json;
      if (o.properties) Object.keys(o.properties).forEach((k) => names.add(k));
      Object.values(o).forEach(walk);
    };
    for (const type of EVENT_TYPES) walk(doc.webhooks[type].post.requestBody.content['application/json'].schema);
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      if (name.endsWith('Data') || name === 'EventEnvelope') walk(schema);
    }
    expect(names.size).toBeGreaterThan(10);
    for (const forbidden of FORBIDDEN_EVENT_FIELDS) expect(names.has(forbidden), forbidden).toBe(false);
  });
});
