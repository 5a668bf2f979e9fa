/**
 * What the sandbox fuzz suite (fuzz.test.ts) is made of: the routes to fuzz, read from the
 * sandbox's own route tables; arbitraries of hostile requests (bodies generated from each
 * route's request schema with hostile values mixed in at every level, malformed JSON, wrong
 * content types, huge bodies, hostile path parameters, query strings and headers, bad
 * signatures); a raw sender over node:http with a time bound; and the checks of an answer
 * (under 500, the error format of the surface and dialect, never a secret).
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import fc from 'fast-check';
import * as z from 'zod';
import { ErrorEnvelope } from '../../src/contract/common.js';
import { ENDPOINTS, type Endpoint } from '../../src/contract/endpoints.js';
import { ERRORS, type ErrorCode } from '../../src/contract/errors.js';
import { ADMIN_ROUTES } from '../../src/sandbox/admin/router.js';
import { ADMIN_ERRORS } from '../../src/sandbox/http/errors.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';

// ---------------------------------------------------------------------------------------
// Routes

export interface FuzzTarget {
  /** `api` (/api/v1) or `admin` (/admin). */
  surface: 'api' | 'admin';
  method: string;
  /** Relative to the surface, with `{param}` placeholders. */
  path: string;
  /** `api GET /orders/{order_id}`: the name of the route in reports. */
  name: string;
  /** Request body schema, when the route takes one. */
  body?: z.ZodType;
  /** Query parameters the route reads (schemas where the table has them). */
  query: Record<string, z.ZodType | undefined>;
  /** Path parameters (schemas where the table has them). */
  pathParams: Record<string, z.ZodType | undefined>;
  signed: boolean;
  idempotency: 'required' | 'optional' | 'none';
  endpoint?: Endpoint;
}

/** Query parameters the admin handlers read (they take a URLSearchParams, not a schema). */
const ADMIN_QUERY_NAMES = ['partner_id', 'status', 'gate', 'limit', 'cursor', 'order_id', 'event_id', 'type', 'resolution'];

const paramNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** Every route of the sandbox: the API's endpoint table and the admin surface's route table. */
export function fuzzTargets(): FuzzTarget[] {
  const api: FuzzTarget[] = ENDPOINTS.map((e) => ({
    surface: 'api',
    method: e.method,
    path: e.path,
    name: `api ${e.method} ${e.path}`,
    body: e.request,
    query: { ...e.query },
    pathParams: Object.fromEntries(paramNames(e.path).map((n) => [n, e.pathParams?.[n]])),
    signed: e.signed,
    idempotency: e.idempotency,
    endpoint: e,
  }));
  const admin: FuzzTarget[] = ADMIN_ROUTES.map((r) => ({
    surface: 'admin',
    method: r.method,
    path: r.path,
    name: `admin ${r.method} ${r.path}`,
    body: r.body,
    query: Object.fromEntries(ADMIN_QUERY_NAMES.map((n) => [n, undefined])),
    pathParams: Object.fromEntries(paramNames(r.path).map((n) => [n, undefined])),
    signed: false,
    idempotency: 'none',
  }));
  return [...api, ...admin];
}

// ---------------------------------------------------------------------------------------
// Hostile values

/** Numbers that break naive arithmetic: beyond 2^53, past a double, tiny, negative zero, inexact. */
export const wildNumber = fc.constantFrom(
  0,
  -0,
  -1,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  // eslint-disable-next-line no-loss-of-precision -- numbers past 2^53 on purpose
  90071992547409930,
  90071992547409.92,
  1e-10,
  0.1 + 0.2,
  12.505,
  1e14,
  1e21,
  4294967296,
  2147483648,
  1_000_001,
  0.5,
);

/** Number literals JSON.stringify never writes (1e400 parses to Infinity). */
export const wildNumberLiteral = fc.constantFrom(
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '0.1e1',
  '-0',
  '1E2',
  '9007199254740993',
  '0.000000000000000000001',
  '100.000000000000000001',
);

/** Keys an object lookup on a plain record trips over, and other strings with a meaning. */
export const trickyWord = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
  '',
  ' ',
  '..',
  '.',
  '../..',
  '..%2f..',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '\u0000',
  '\u202e',
  '\u200b',
  '💥',
  'é',
  'ﬁ',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '0',
  '-1',
  'ord_',
  'ord_ ',
  'ord_x',
  'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  'txn_1',
  'sbx-instant ',
  'SBX-INSTANT',
  'USD',
  'usd',
  'XXX',
  'x'.repeat(300),
);

export const wildString = fc.oneof(
  { arbitrary: trickyWord, weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 24 }), weight: 1 },
  { arbitrary: fc.string({ maxLength: 24 }), weight: 2 },
  { arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'a'.repeat(n)), weight: 1 },
);

/** `depth` arrays or objects inside each other. */
function nested(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: wildNumber, weight: 3 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: wildString, weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 1500 }), fc.constantFrom('array' as const, 'object' as const))
      .map(([d, k]) => nested(d, k)),
    weight: 1,
  },
  { arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 5 }), weight: 1 },
  { arbitrary: fc.dictionary(wildString, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }), weight: 1 },
);

// ---------------------------------------------------------------------------------------
// Values from a route's schema, with hostile values mixed in at every level

type JsonSchema = Record<string, any>;

/** Values by field or parameter name that reach past validation (real ids, products, URLs). */
export type Hints = Record<string, fc.Arbitrary<unknown> | Only>;

/** A hint that replaces the field's values altogether (a load knob such as `count`, kept small). */
export class Only {
  constructor(readonly arbitrary: fc.Arbitrary<unknown>) {}
}

function hintOf(hints: Hints, name: string | undefined): fc.Arbitrary<unknown> | undefined {
  const h = name !== undefined && Object.hasOwn(hints, name) ? hints[name] : undefined;
  return h instanceof Only ? h.arbitrary : h;
}

const onlyHint = (hints: Hints, name: string | undefined) =>
  name !== undefined && Object.hasOwn(hints, name) && hints[name] instanceof Only ? (hints[name] as Only).arbitrary : undefined;

interface SchemaContext {
  defs: Record<string, JsonSchema>;
  hints: Hints;
  depth: number;
  /** Weight of a hostile value at each level (0: conforming or hinted values only). */
  hostile: number;
}

function numberArbitrary(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : undefined);
  const max = s.maximum ?? s.exclusiveMaximum;
  if (integer) {
    const lo = Math.max(min ?? -1_000_000, Number.MIN_SAFE_INTEGER);
    const hi = Math.min(max ?? 1_000_000, Number.MAX_SAFE_INTEGER);
    return fc.oneof(fc.integer({ min: lo, max: Math.min(hi, lo + 1000) }), fc.constantFrom(lo, hi), fc.integer({ min: lo, max: hi }));
  }
  return fc.oneof(
    fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Math.ceil(min ?? -1000), max: Math.min(Math.floor(max ?? 1000), 1000) }),
    fc.integer({ min: 0, max: 100_000 }).map((n) => Math.max(n / 100, min ?? -Infinity)),
  );
}

function stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date')
    return fc
      .date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  if (s.format === 'uri') {
    return fc.oneof(
      fc.constantFrom(
        'http://127.0.0.1:9/hooks',
        'https://localhost:9/x',
        'http://[::1]:9/',
        'http://localhost.:9',
        'ftp://127.0.0.1/',
        'http://192.0.2.1/hooks',
        'https://127.0.0.1:9/%zz',
        'http://127.0.0.1:99999/',
        'javascript:alert(1)',
        'http://user:pass@127.0.0.1:9/',
      ),
      fc.webPath().map((p) => `http://127.0.0.1:9${p.startsWith('/') ? '' : '/'}${p}`),
    );
  }
  if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern), { size: 'small' });
  return fc.string({ unit: 'grapheme', minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 300) });
}

function schemaArbitrary(s: JsonSchema, ctx: SchemaContext, name?: string): fc.Arbitrary<unknown> {
  const only = onlyHint(ctx.hints, name);
  if (only) return only;
  const conforming = conformingArbitrary(s, ctx, name);
  const hint = hintOf(ctx.hints, name);
  return fc.oneof(
    { arbitrary: conforming, weight: hint ? (ctx.hostile > 0 ? 2 : 1) : 8 },
    ...(hint ? [{ arbitrary: hint, weight: ctx.hostile > 0 ? 7 : 12 }] : []),
    ...(ctx.hostile > 0 ? [{ arbitrary: hostileValue, weight: ctx.hostile }] : []),
  );
}

function conformingArbitrary(s: JsonSchema, ctx: SchemaContext, name?: string): fc.Arbitrary<unknown> {
  if (typeof s.$ref === 'string') {
    const def = ctx.defs[s.$ref.replace('#/$defs/', '')];
    return def ? conformingArbitrary(def, ctx, name) : hostileValue;
  }
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a: JsonSchema) => conformingArbitrary(a, ctx, name)));
  const inner = { ...ctx, depth: ctx.depth + 1 };
  switch (s.type) {
    case 'object': {
      const props: Record<string, JsonSchema> = s.properties ?? {};
      const required: string[] = s.required ?? [];
      const fields = Object.entries(props).map(([k, v]) => [k, schemaArbitrary(v, inner, k)] as const);
      const record = fc.record(Object.fromEntries(fields), { requiredKeys: required.filter((k) => k in props) });
      // A record of arbitrary keys (wallets: {"USD": 100}): keys from propertyNames.
      const extraKeys =
        s.additionalProperties && typeof s.additionalProperties === 'object'
          ? fc.dictionary(s.propertyNames ? stringArbitrary(s.propertyNames) : wildString, schemaArbitrary(s.additionalProperties, inner), {
              maxKeys: 4,
            })
          : fc.constant({});
      const sometimes = <T>(a: fc.Arbitrary<T>) => (ctx.hostile > 0 ? fc.option(a, { freq: 8 }) : fc.constant(null));
      return fc
        .tuple(
          record,
          extraKeys,
          sometimes(fc.tuple(wildString, hostileValue)),
          sometimes(fc.constantFrom(...(required.length ? required : ['-']))),
        )
        .map(([r, extra, unknown, dropped]) => {
          const out: Record<string, unknown> = { ...extra, ...r };
          if (unknown) out[unknown[0]] = unknown[1];
          if (dropped) delete out[dropped];
          return out;
        });
    }
    case 'array': {
      const items: JsonSchema = s.items ?? {};
      // Short when clean: every element has to pass for the request to reach past validation.
      const maxLength = Math.min(s.maxItems ?? 5, ctx.hostile > 0 ? 12 : 3);
      return fc.oneof(
        { arbitrary: fc.array(schemaArbitrary(items, inner), { minLength: Math.min(s.minItems ?? 0, maxLength), maxLength }), weight: 6 },
        {
          arbitrary: fc.array(schemaArbitrary(items, inner), { minLength: (s.maxItems ?? 12) + 1, maxLength: (s.maxItems ?? 12) + 3 }),
          weight: ctx.hostile > 0 ? 1 : 0,
        },
      );
    }
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const jsonSchemas = new WeakMap<z.ZodType, JsonSchema>();

/** Values for a zod schema: mostly conforming (or a hint of that name), hostile at any level. */
export function valuesOf(schema: z.ZodType | undefined, hints: Hints, name?: string, hostile = 1): fc.Arbitrary<unknown> {
  const only = onlyHint(hints, name);
  if (only) return only;
  if (!schema) {
    const hint = hintOf(hints, name);
    if (hint) return hostile > 0 ? fc.oneof({ arbitrary: hint, weight: 4 }, { arbitrary: hostileValue, weight: hostile }) : hint;
    return hostileValue;
  }
  let json = jsonSchemas.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
    jsonSchemas.set(schema, json);
  }
  return schemaArbitrary(json, { defs: json.$defs ?? {}, hints, depth: 0, hostile }, name);
}

// ---------------------------------------------------------------------------------------
// Requests

export type SignMode = 'good' | 'none' | 'wrong-secret' | 'old' | 'future' | 'mismatch' | 'garbage' | 'relative';
export type CredMode = 'good' | 'none' | 'wrong-secret' | 'unknown-key' | 'other-key' | 'garbage';

export interface FuzzRequest {
  target: FuzzTarget;
  method: string;
  /** The request target after /api/v1 or /admin: path and query, as sent. */
  relTarget: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Send the body chunked instead of with a Content-Length. */
  chunked: boolean;
  sign: SignMode;
  creds: CredMode;
}

/** Text of a request for a failure report (bodies cut short). */
export function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === undefined
      ? ''
      : r.body.length > 300
        ? `${r.body.subarray(0, 300).toString('utf8')}… (${r.body.length} bytes)`
        : r.body.toString('utf8');
  const headers = Object.fromEntries(
    Object.entries(r.headers).map(([k, v]) => [k, String(v).length > 200 ? `${String(v).slice(0, 200)}… (${String(v).length})` : v]),
  );
  return `${r.method} ${r.target.surface === 'api' ? '/api/v1' : '/admin'}${r.relTarget.length > 300 ? r.relTarget.slice(0, 300) + '…' : r.relTarget} [${r.target.name}; sign ${r.sign}; creds ${r.creds}${r.chunked ? '; chunked' : ''}] headers ${JSON.stringify(headers)} body ${JSON.stringify(body)}`;
}

/** A path parameter: a hint of that name, schema-conforming, or hostile; percent-encoded or raw. */
function pathParamArbitrary(name: string, schema: z.ZodType | undefined, hints: Hints): fc.Arbitrary<string> {
  const value = fc.oneof(
    { arbitrary: valuesOf(schema, hints, name).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'))), weight: 6 },
    { arbitrary: trickyWord, weight: 2 },
  );
  return fc.tuple(value, fc.constantFrom('encode', 'encode', 'encode', 'raw', 'latin1')).map(([v, how]) => {
    if (how === 'encode') return percentEncode(v);
    // Raw: what node:http lets through in a request target (no spaces, nothing past U+00FF).
    if (how === 'raw') return [...v].filter((c) => c > ' ' && c <= '\u00ff').join('');
    return [...v].map((c) => (c > ' ' && c <= '\u00ff' ? c : '\u00e9')).join('');
  });
}

/** encodeURIComponent, also for text with a lone surrogate (sent as U+FFFD). */
export function percentEncode(s: string): string {
  return encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));
}

const queryValue = (name: string, schema: z.ZodType | undefined, hints: Hints) =>
  fc.oneof(
    { arbitrary: valuesOf(schema, hints, name).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        '-1',
        '0',
        '201',
        '1e309',
        '1.5',
        'abc',
        '',
        ' 5',
        '0x10',
        '50',
        '1',
        'null',
        '%',
        '%zz',
        '%E0%A4%A',
        '2026-02-30',
        '9999-12-31',
        '0000-01-01',
      ),
      weight: 3,
    },
    {
      arbitrary: fc.constantFrom(
        'eyJwIjoxfQ',
        'eyJwIjpudWxsfQ',
        'W10',
        'e30',
        'bnVsbA',
        '!!!',
        'eyJwIjoienp6In0',
        'x'.repeat(3000),
        'eyJwIjoiX19wcm90b19fIn0',
      ),
      weight: 2,
    },
    { arbitrary: wildString, weight: 2 },
  );

function queryArbitrary(t: FuzzTarget, hints: Hints): fc.Arbitrary<string> {
  const names = Object.keys(t.query);
  // Names repeat at will: `limit=1&limit=-1` is one of the shapes.
  const pair = fc
    .oneof(
      { arbitrary: fc.constantFrom(...(names.length ? names : ['limit'])), weight: 5 },
      { arbitrary: fc.constantFrom('limit', 'cursor', '', 'x', 'LIMIT', '__proto__'), weight: 1 },
    )
    .chain((name) => queryValue(name, Object.hasOwn(t.query, name) ? t.query[name] : undefined, hints).map((v) => [name, v] as const));
  return fc
    .tuple(fc.array(pair, { maxLength: 4 }), fc.constantFrom('encode', 'encode', 'raw'), fc.boolean())
    .map(([pairs, how, trailing]) => {
      if (pairs.length === 0) return trailing ? '?' : '';
      const enc = (s: string) =>
        how === 'encode' ? percentEncode(s) : [...s].filter((c) => c > ' ' && c <= '\u00ff' && c !== '#').join('');
      return '?' + pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&') + (trailing ? '&' : '');
    });
}

/** A body: JSON of the schema (hostile inside), other JSON, malformed text, huge, or none. */
function bodyArbitrary(t: FuzzTarget, hints: Hints): fc.Arbitrary<Buffer | undefined> {
  const valid = valuesOf(t.body, hints);
  const json = valid.map((v) => Buffer.from(JSON.stringify(v) ?? 'null'));
  const withWildNumber = fc.tuple(valid, wildNumberLiteral).map(([v, lit]) => {
    const text = JSON.stringify(v) ?? 'null';
    return Buffer.from(
      /:-?\d/.test(text)
        ? text.replace(/:(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/, `:${lit}`)
        : `{"amount":${lit},"currency":"USD","seconds":${lit}}`,
    );
  });
  const malformed = fc.oneof(
    fc
      .constantFrom(
        '{',
        '{"a":}',
        '[1,]',
        '{"a":1,}',
        'NaN',
        "{'a':1}",
        '{"a":1}{"b":2}',
        '\ufeff{}',
        'null',
        '"text"',
        '[]',
        '{}',
        '0',
        'true',
        ' ',
        '\u0000',
        '{"__proto__":{"admin":true}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}],"items":"x"}',
      )
      .map((s) => Buffer.from(s)),
    json.map((b) => b.subarray(0, Math.max(0, b.length - 1))),
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
    fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d])),
    fc.integer({ min: 1000, max: 200_000 }).map((n) => Buffer.from('['.repeat(n))),
    fc.integer({ min: 1000, max: 100_000 }).map((n) => Buffer.from('['.repeat(n) + ']'.repeat(n))),
  );
  const huge = fc.oneof(
    // Just over 1 MiB, and just under it (valid JSON the size of the limit).
    fc.integer({ min: 1, max: 4096 }).map((extra) => Buffer.from(`"${'a'.repeat(1024 * 1024 + extra - 2)}"`)),
    fc.integer({ min: 3, max: 4096 }).map((less) => Buffer.from(`{"a":"${'a'.repeat(1024 * 1024 - less - 8)}"}`)),
    fc.constant(Buffer.from(`[${'1,'.repeat(400_000)}1]`)),
  );
  return fc.oneof(
    { arbitrary: json, weight: t.body ? 14 : 3 },
    { arbitrary: withWildNumber, weight: t.body ? 3 : 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))), weight: 2 },
    { arbitrary: malformed, weight: 3 },
    { arbitrary: huge, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: t.body ? 2 : 6 },
  );
}

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json; charset=utf-8'), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      'application/json',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
      'application/merge-patch+json',
      'application/problem+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      ';',
      'application/json\u00e9',
      '*/*',
      'application/jsonp',
      'x'.repeat(5000),
    ),
    weight: 3,
  },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

/** Header values node:http sends (Latin-1, no CR or LF). */
const headerText = fc.oneof(
  trickyWord.map((s) => [...s].filter((c) => c >= ' ' && c <= '\u00ff').join('')),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')),
  fc
    .string({ unit: 'binary', maxLength: 20 })
    .map((s) => [...s].map((c) => (c >= ' ' && c <= '\u00ff' && c !== '\x7f' ? c : '\u00e9')).join('')),
);

const idempotencyKey = fc.oneof(
  { arbitrary: fc.uuid(), weight: 6 },
  { arbitrary: fc.constantFrom('fuzz-fixed-key-1', 'fuzz-fixed-key-2'), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\t',
      'a'.repeat(255),
      'a'.repeat(256),
      'a'.repeat(8000),
      'clé',
      'key\t',
      'k e y',
      '\u00ff',
      '\u0080',
    ),
    weight: 2,
  },
  { arbitrary: headerText, weight: 2 },
);

const simulate = fc.constantFrom(
  'rate_limit',
  'server_error',
  'timeout',
  'drop_after_commit',
  ' TIMEOUT ',
  'Rate_Limit',
  'nope',
  '',
  'timeout,timeout',
  'x'.repeat(2000),
);

/** Extra headers: faults, idempotency keys, trace ids, junk, an oversized one. */
function headersArbitrary(t: FuzzTarget): fc.Arbitrary<Record<string, string | string[]>> {
  return fc
    .record(
      {
        'x-sandbox-simulate': fc.oneof(
          simulate,
          simulate.map((v) => [v, 'timeout']),
        ),
        'idempotency-key': fc.oneof(
          { arbitrary: idempotencyKey, weight: 6 },
          { arbitrary: fc.tuple(idempotencyKey, idempotencyKey).map(([a, b]) => [a, b]), weight: 1 },
        ),
        traceparent: fc.oneof(
          fc.constantFrom(
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            '00-00000000000000000000000000000000-b7ad6b7169203331-01',
            'ff-x-y-z',
          ),
          headerText,
        ),
        'x-timestamp': headerText,
        'x-forwarded-for': fc.constantFrom('203.0.113.9', '127.0.0.1', 'garbage'),
        accept: fc.constantFrom('application/xml', '*/*', 'text/html', ''),
        'x-junk': headerText,
        'x-oversized': fc.integer({ min: 8_000, max: 40_000 }).map((n) => 'h'.repeat(n)),
      },
      { requiredKeys: [] },
    )
    .map((h) => {
      // Rare on purpose: most requests carry one or two of these.
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = v as string | string[];
      if (t.idempotency === 'none') delete out['idempotency-key'];
      return out;
    });
}

function finish(req: FuzzRequest): FuzzRequest {
  // fast-check prints a counterexample with this: short, and enough to send it again.
  Object.defineProperty(req, fc.toStringMethod, { value: () => describeRequest(req) });
  return req;
}

/**
 * A request the route should take: signed, good credentials, values of its schemas or
 * live ids (which may still be refused: an order of a product out of stock, a key revoked).
 * These reach the handlers, so hostile values inside them are tested where they matter.
 */
function cleanRequestArbitrary(t: FuzzTarget, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const params = Object.entries(t.pathParams);
  const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const path = fc.tuple(...params.map(([n, s]) => valuesOf(s, hints, n, 0).map((v) => percentEncode(text(v))))).map((values) => {
    let i = 0;
    return t.path.replace(/\{(\w+)\}/g, () => values[i++] ?? '');
  });
  const names = Object.keys(t.query);
  const query =
    names.length === 0
      ? fc.constant('')
      : fc
          .subarray(names, { maxLength: Math.min(3, names.length) })
          .chain((chosen) =>
            fc
              .tuple(...chosen.map((n) => valuesOf(t.query[n], hints, n, 0).map((v) => `${n}=${percentEncode(text(v))}`)))
              .map((pairs) => (pairs.length ? `?${pairs.join('&')}` : '')),
          );
  const body = t.body
    ? valuesOf(t.body, hints, undefined, 0).map((v) => Buffer.from(JSON.stringify(v)))
    : fc.constant(t.method === 'GET' ? undefined : Buffer.from('{}'));
  return fc.record({ path, query, body, key: fc.uuid() }).map((r) => {
    const headers: Record<string, string> = {};
    if (r.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    if (t.idempotency !== 'none') headers['idempotency-key'] = r.key;
    return finish({
      target: t,
      method: t.method,
      relTarget: r.path + r.query,
      headers,
      body: r.body,
      chunked: false,
      sign: 'good',
      creds: 'good',
    });
  });
}

/** Requests to one route: the route's own (clean) ones, and hostile ones, most of them hostile in a few ways at once. */
export function requestArbitrary(t: FuzzTarget, hints: Hints): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ arbitrary: cleanRequestArbitrary(t, hints), weight: 2 }, { arbitrary: hostileRequestArbitrary(t, hints), weight: 3 });
}

function hostileRequestArbitrary(t: FuzzTarget, hints: Hints): fc.Arbitrary<FuzzRequest> {
  const params = Object.entries(t.pathParams);
  const path = fc.tuple(...params.map(([n, s]) => pathParamArbitrary(n, s, hints))).map((values) => {
    let i = 0;
    return t.path.replace(/\{(\w+)\}/g, () => values[i++] ?? '');
  });
  const pathVariant = fc
    .tuple(path, fc.constantFrom('', '', '', '', '', '', '/', '//', '/..', '/./', '%2F', ';x=1'))
    .map(([p, suffix]) => (p + suffix).replace(/^(?!\/)/, '/'));
  const method = fc.oneof(
    { arbitrary: fc.constant(t.method), weight: 20 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'post'), weight: 1 },
  );
  const sign = fc.oneof(
    { arbitrary: fc.constant<SignMode>('good'), weight: 16 },
    { arbitrary: fc.constantFrom<SignMode>('none', 'wrong-secret', 'old', 'future', 'mismatch', 'garbage', 'relative'), weight: 2 },
  );
  const creds = fc.oneof(
    { arbitrary: fc.constant<CredMode>('good'), weight: 16 },
    { arbitrary: fc.constantFrom<CredMode>('none', 'wrong-secret', 'unknown-key', 'other-key', 'garbage'), weight: 1 },
  );
  return fc
    .record({
      method,
      path: pathVariant,
      query: fc.oneof({ arbitrary: fc.constant(''), weight: 2 }, { arbitrary: queryArbitrary(t, hints), weight: 1 }),
      body: bodyArbitrary(t, hints),
      contentType,
      headers: fc.oneof({ arbitrary: fc.constant({}), weight: 2 }, { arbitrary: headersArbitrary(t), weight: 1 }),
      chunked: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
      freshKey: fc.uuid(),
      sign,
      creds,
    })
    .map((r) => {
      // Only what node:http sends: Latin-1 without control characters but TAB.
      const sendable = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
      const headers: Record<string, string | string[]> = Object.fromEntries(
        Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(sendable) : sendable(v)]),
      );
      if (r.contentType !== undefined && r.body !== undefined) headers['content-type'] = r.contentType;
      if (t.idempotency !== 'none' && !('idempotency-key' in headers) && r.body !== undefined) headers['idempotency-key'] = r.freshKey;
      return finish({
        target: t,
        method: r.method,
        relTarget: r.path + r.query,
        headers,
        body: r.body,
        chunked: r.chunked,
        sign: r.sign,
        creds: r.creds,
      });
    });
}

// ---------------------------------------------------------------------------------------
// Sending

export interface Credentials {
  apiKey: string;
  apiSecret: string;
  adminToken: string;
  /** Another partner's key (may be revoked by the fuzz itself). */
  otherKey?: { apiKey: string; apiSecret: string };
}

export type Outcome =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; text: string; ms: number }
  | { kind: 'dropped'; error: string; ms: number }
  | { kind: 'timeout'; ms: number };

/** The sandbox's clock as last seen in a Date header (the admin surface may move it). */
export class ServerClock {
  private skewMs = 0;
  seconds(): number {
    return Math.floor((Date.now() + this.skewMs) / 1000);
  }
  saw(date: string | string[] | undefined): void {
    const v = Array.isArray(date) ? date[0] : date;
    const t = v ? Date.parse(v) : NaN;
    if (Number.isFinite(t)) this.skewMs = t + 500 - Date.now();
  }
}

function hmac(secret: string, message: string | Buffer): string {
  return createHmac('sha256', secret).update(message).digest('hex');
}

/** Headers of identity and signature for the request's modes. */
function authHeaders(r: FuzzRequest, creds: Credentials, clock: ServerClock): Record<string, string> {
  const h: Record<string, string> = {};
  if (r.target.surface === 'admin') {
    if (r.creds === 'good' || r.creds === 'other-key' || r.creds === 'unknown-key') h.authorization = `Bearer ${creds.adminToken}`;
    else if (r.creds === 'wrong-secret') h.authorization = `Bearer ${creds.adminToken.slice(0, -1)}x`;
    else if (r.creds === 'garbage') h.authorization = `Basic ${creds.adminToken}`;
    return h;
  }
  const key = r.creds === 'other-key' && creds.otherKey ? creds.otherKey : creds;
  if (r.creds !== 'none') {
    h['x-api-key'] = r.creds === 'unknown-key' ? 'key_unknown' : r.creds === 'garbage' ? '__proto__' : key.apiKey;
    h['x-api-secret'] = r.creds === 'wrong-secret' ? key.apiSecret + 'x' : key.apiSecret;
  }
  if (!r.target.signed && r.sign === 'good') return h;
  const now = clock.seconds();
  const ts = r.sign === 'old' ? now - 3600 : r.sign === 'future' ? now + 3600 : now;
  const base = r.target.surface === 'api' ? '/api/v1' : '/admin';
  const path = r.sign === 'relative' ? r.relTarget : base + r.relTarget;
  const message = Buffer.concat([Buffer.from(`${ts}${r.method.toUpperCase()}${path}`, 'utf8'), r.body ?? Buffer.alloc(0)]);
  const secret = r.sign === 'wrong-secret' ? key.apiSecret + 'x' : key.apiSecret;
  if (r.sign === 'none') return h;
  h['x-timestamp'] = String(r.sign === 'mismatch' ? ts + 1 : ts);
  h['x-signature'] = r.sign === 'garbage' ? `t=${ts},v1=zz,v2=${'0'.repeat(64)}` : `t=${ts},v1=${hmac(secret, message)}`;
  return h;
}

/** Send one request over a fresh connection; give up (a hang) after `timeoutMs`. */
export function send(sb: SandboxHandle, r: FuzzRequest, creds: Credentials, clock: ServerClock, timeoutMs: number): Promise<Outcome> {
  const started = performance.now();
  const base = r.target.surface === 'api' ? '/api/v1' : '/admin';
  const headers: Record<string, string | string[]> = { ...authHeaders(r, creds, clock), ...r.headers, connection: 'close' };
  // Framed either way (node:http sends a GET body unframed unless told).
  if (r.body !== undefined) {
    if (r.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(r.body.length);
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: Outcome) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(o);
      }
    };
    const req = request({ host: sb.host, port: sb.port, method: r.method, path: base + r.relTarget, headers, agent: false, setHost: true });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ kind: 'timeout', ms: performance.now() - started });
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', (e) => finish({ kind: 'dropped', error: `response: ${e.message}`, ms: performance.now() - started }));
      res.on('aborted', () => finish({ kind: 'dropped', error: 'response aborted', ms: performance.now() - started }));
    });
    req.on('error', (e) =>
      finish({ kind: 'dropped', error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`, ms: performance.now() - started }),
    );
    if (r.body !== undefined && r.chunked) {
      const size = Math.max(1, Math.ceil(r.body.length / 3));
      for (let i = 0; i < r.body.length; i += size) req.write(r.body.subarray(i, i + size));
      req.end();
    } else {
      req.end(r.body);
    }
  });
}

// ---------------------------------------------------------------------------------------
// Checking an answer

/** RFC 9457 problem details as the document dialect writes them (docs/sandbox.md). */
export const ProblemDetails = z.strictObject({
  type: z.literal('about:blank'),
  title: z.string().min(1),
  status: z.number().int(),
  detail: z.string().min(1),
  errors: z.array(z.strictObject({ field: z.string(), message: z.string() })).optional(),
});

const contentTypeOf = (h: Record<string, string | string[] | undefined>) => String(h['content-type'] ?? '');

/**
 * Why an error answer is not in the format its surface promises, or undefined when it is.
 * decisions dialect and the admin surface: `{"error":{name, code, message, details?}}` with
 * a code of the contract whose status and name match. document dialect (its /api/v1 and
 * paths outside both surfaces): problem details, but INSUFFICIENT_INVENTORY and the 429 in
 * the envelope. On the admin surface (`admin`), also the admin surface's own codes (ADMIN_ERRORS).
 */
export function errorFormatProblem(
  format: 'envelope' | 'document',
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  admin = false,
): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`;
  }
  const type = contentTypeOf(headers);
  if (format === 'document' && type === 'application/problem+json') {
    const p = ProblemDetails.safeParse(body);
    if (!p.success) return `not problem details: ${p.error.message}`;
    if (p.data.status !== status) return `problem status ${p.data.status} on a ${status}`;
    if (status === 422 && p.data.errors === undefined) return 'a 422 problem without errors';
    return undefined;
  }
  if (type !== 'application/json; charset=utf-8') return `Content-Type ${JSON.stringify(type)}`;
  const e = ErrorEnvelope.safeParse(body);
  if (!e.success) return `not the error envelope: ${e.error.message}`;
  const { code, name } = e.data.error;
  if (format === 'document') {
    if (status === 429 && code === 'TOO_MANY_REQUESTS' && name === 'TooManyRequests') return undefined;
    if (code !== 'INSUFFICIENT_INVENTORY') return `the document dialect answers ${code} in the envelope, not as problem details`;
  }
  const known = ((admin ? { ...ERRORS, ...ADMIN_ERRORS } : ERRORS) as Record<string, { status: number; name: string } | undefined>)[code];
  if (!known) return `unknown error code ${code}`;
  if (known.status !== status || known.name !== name)
    return `${code}/${name} on a ${status} (the contract says ${known.status} ${known.name})`;
  return undefined;
}

export function isErrorCode(code: string): code is ErrorCode {
  return code in ERRORS;
}
