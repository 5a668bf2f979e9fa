/**
 * The OpenAPI 3.1 document of the Partner API, generated from the contract as code: the
 * endpoint table, the zod schemas (through `z.toJSONSchema`, JSON Schema draft 2020-12)
 * and the error catalog. `npm run openapi` writes it to docs/openapi.json; a test keeps the
 * checked-in file equal to `buildOpenApi()`. Everything here is deterministic: same code,
 * same bytes.
 */
import * as z from 'zod';
import { ErrorEnvelope } from './common.js';
import { ENDPOINTS, type Endpoint, type HttpMethod } from './endpoints.js';
import { ERRORS, EXTENSION_ERROR_CODES, type ErrorCode } from './errors.js';
import { EVENT_DATA, EVENT_TYPES, EventEnvelope, type EventType } from './events.js';
import { SchemaCollector, type Json } from './openapi-schemas.js';

export const OPENAPI_VERSION = '3.1.0';
export const SANDBOX_BASE_URL = 'http://127.0.0.1:4010/api/v1';

/** When each error is answered (the decisions file's error table, in prose). */
export const ERROR_CONDITIONS: Record<ErrorCode, string> = {
  MALFORMED_REQUEST: 'the body is not JSON',
  IDEMPOTENCY_KEY_REQUIRED: 'Idempotency-Key missing on an endpoint that requires it',
  AUTHENTICATION_FAILED: 'X-API-Key/X-API-Secret missing, unknown, wrong or revoked (never says which)',
  INVALID_SIGNATURE: 'signature headers missing or malformed, t= differs from X-Timestamp, or the HMAC does not match',
  TIMESTAMP_OUT_OF_WINDOW: 'X-Timestamp more than 300 s from server time, either direction (server time in the Date header)',
  INSUFFICIENT_FUNDS: 'wallet balance below the total; nothing is created',
  IP_NOT_ALLOWED: "source address outside the key's allowlist",
  PRODUCT_NOT_AVAILABLE: "the product's category is not open to the partner",
  NOT_FOUND: "unknown path, order or product (also another partner's order)",
  WEBHOOK_NOT_REGISTERED: 'GET or DELETE /webhooks when no webhook endpoint is registered (extension)',
  METHOD_NOT_ALLOWED: 'the path exists but not with this method (any path)',
  INSUFFICIENT_INVENTORY: 'no vouchers available for the product, neither cache nor vendor; nothing debited',
  ORDER_NOT_CANCELLABLE: 'cancel of an order that is not PENDING',
  IDEMPOTENCY_KEY_IN_PROGRESS: 'the first request with this Idempotency-Key is still running (Retry-After: 1)',
  PAYLOAD_TOO_LARGE: 'body over 1 MiB',
  UNSUPPORTED_MEDIA_TYPE: 'Content-Type is not application/json (extension)',
  VALIDATION_FAILED: 'a field or parameter is invalid; details lists each path and message',
  IDEMPOTENCY_KEY_REUSED: 'the Idempotency-Key was used before with a different body',
  RATE_LIMIT_EXCEEDED: 'a rate-limit class is exhausted; wait Retry-After seconds',
  INTERNAL_ERROR: 'never expected; still the error envelope',
  SERVICE_UNAVAILABLE: 'temporarily unavailable; retry after Retry-After seconds',
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Success descriptions that say more than the status text. */
const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  'createOrder 201':
    'Cache-hit: status DELIVERED, `fulfilled_from: cache`, vouchers with `code`/`pin` in the body (the only response besides GET /orders/{order_id}/vouchers that carries codes)',
  'createOrder 202':
    'Cache-miss: status PENDING, no vouchers yet; webhooks follow (order.processing, then order.delivered, order.partially_delivered or order.cancelled/order.refunded)',
  'getOrder 200': 'The order; vouchers show `code_last4` instead of the code',
  'getOrderCodes 200': "The order's issued codes and pins; every call is recorded on the server with its trace ID",
  'cancelOrder 200': 'The order, now CANCELLED; the debit is refunded (order.cancelled, then order.refunded)',
  'registerWebhook 201': 'Created; `signing_secret` (whsec_…) is returned this once',
  'registerWebhook 200': 'Updated; `signing_secret` only when `rotate_secret` was true',
  'deleteWebhook 204': 'Removed; no body',
  'getReconciliation 200': 'The daily report of orders settled on that date (planned; shape may change)',
};

const EVENT_MEANINGS: Record<EventType, string> = {
  'order.created': 'Order accepted into the system',
  'order.processing': 'Allocation in progress (typical for the async path)',
  'order.delivered': 'All vouchers allocated and ready',
  'order.partially_delivered': 'Some vouchers allocated, the rest failed; the failed part is refunded',
  'order.cancelled': 'Order cancelled (admin gate or partner request)',
  'order.refunded': 'Wallet credit returned after cancellation or partial delivery',
  'voucher.issued': 'A specific voucher within an order has been issued',
};

const TAGS = [
  { name: 'catalog', description: 'Categories and products (SKUs)', segments: ['categories', 'products'] },
  { name: 'orders', description: 'Orders, their vouchers and the secure code endpoint', segments: ['orders'] },
  { name: 'wallets', description: 'Wallet balances, transaction history and payouts', segments: ['wallets', 'transactions', 'payouts'] },
  { name: 'webhooks', description: "The partner's webhook endpoint", segments: ['webhooks'] },
  { name: 'reconciliation', description: 'Daily reconciliation report (planned)', segments: ['reconciliation'] },
] as const;

const DESCRIPTION = [
  'Voucher Fulfilment Partner API v1, generated from the contract as code of the `vouchers` CLI (src/contract). Prose: docs/contract.md.',
  '',
  'Every request carries `X-API-Key` and `X-API-Secret`. Every POST, PUT and DELETE is signed: `X-Timestamp: <unix seconds>` and `X-Signature: t=<timestamp>,v1=<hex HMAC-SHA256>` over timestamp + METHOD + path + raw body, keyed with the API secret; by default the path is the request target as sent, including the `/api/v1` prefix and the query string. POST /orders and POST /payouts require `Idempotency-Key`.',
  '',
  "Amounts are JSON numbers in major units with the currency's minor digits; timestamps are ISO 8601 UTC with `Z`; dates are `YYYY-MM-DD` (UTC). Response objects may gain fields: clients keep or ignore unknown fields.",
  '',
  '**Extensions** (`x-extension: true`) are not in the API document; they are decisions of this project: GET /orders, GET /orders/{order_id}/vouchers, POST /orders/{order_id}/cancel, GET /webhooks, DELETE /webhooks, the 415 UNSUPPORTED_MEDIA_TYPE error, the 404 WEBHOOK_NOT_REGISTERED error, and `expiry: null` for products whose expiry policy is `none`. A server without an extension answers 404 or 405.',
  '',
  '**Planned** (`x-planned: true`): GET /reconciliation/{date}, whose contract may change before release.',
  '',
  'Where the API document says "not shown" (field names, query parameters, error statuses, the webhook signature scheme, the retry schedule), this document records the concrete decision made for the CLI and its local sandbox.',
].join('\n');

const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

function headerComponents(): Json {
  return {
    'X-Trace-ID': {
      description:
        'Trace ID of the request (32 lowercase hex); the trace-id of a W3C `traceparent` sent with the request. Quote it in support requests.',
      schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    },
    'RateLimit-Limit': {
      description: 'Requests allowed in the window of the rate-limit class charged',
      schema: { type: 'integer', minimum: 0 },
    },
    'RateLimit-Remaining': { description: 'Requests left in the current window of that class', schema: { type: 'integer', minimum: 0 } },
    'RateLimit-Reset': { description: 'Seconds until the window of that class resets', schema: { type: 'integer', minimum: 0 } },
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
    'Idempotent-Replayed': {
      description:
        'Present when the response is the stored response of an earlier request with the same Idempotency-Key and body; nothing ran again',
      schema: { type: 'string', enum: ['true'] },
    },
    Date: { description: 'Server time (HTTP date); compare with X-Timestamp to find the clock skew', schema: { type: 'string' } },
  };
}

function parameterComponents(): Json {
  return {
    XTimestamp: {
      name: 'X-Timestamp',
      in: 'header',
      required: true,
      description: 'Unix time in seconds; within 300 s of server time, either direction',
      schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
      example: '1732270000',
    },
    XSignature: {
      name: 'X-Signature',
      in: 'header',
      required: true,
      description:
        '`t=<X-Timestamp>,v1=<hex HMAC-SHA256>` of timestamp + METHOD + path + raw body, keyed with the API secret (path variant `full` by default: the request target as sent, with /api/v1 and the query string)',
      schema: { type: 'string', pattern: '^t=[0-9]{1,12}(,v1=[0-9a-f]{64})+$' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description:
        'Required. 1–255 printable ASCII characters, one per logical write, reused on every retry. Scope: API key + method + path + key; retained 24 h. Same key and body → the stored response with Idempotent-Replayed: true; different body → 422 IDEMPOTENCY_KEY_REUSED; still running → 409 IDEMPOTENCY_KEY_IN_PROGRESS.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    },
    IdempotencyKeyOptional: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Optional on this write; same rules as on POST /orders when sent.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    },
    Traceparent: {
      name: 'traceparent',
      in: 'header',
      required: false,
      description:
        'W3C trace context; the server then uses its trace-id as X-Trace-ID, so the client knows the trace ID even when no response arrives',
      schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
    },
    WebhookId: {
      name: 'X-Webhook-Id',
      in: 'header',
      required: true,
      description: 'The event_id of the delivered event; deduplicate on it (events may arrive more than once and out of order)',
      schema: { type: 'string', pattern: '^evt_[0-9A-HJKMNP-TV-Z]{26}$' },
    },
    WebhookTimestamp: {
      name: 'X-Webhook-Timestamp',
      in: 'header',
      required: true,
      description: 'Unix seconds of this delivery attempt (the same t= as in X-Webhook-Signature)',
      schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
    },
    WebhookSignature: {
      name: 'X-Webhook-Signature',
      in: 'header',
      required: true,
      description:
        '`t=<unix>,v1=<hex>` where hex = HMAC-SHA256(signing_secret, `<t>.<raw body>`). During a secret rotation one `v1=` per active secret; accept if any matches and t is within 300 s.',
      schema: { type: 'string', pattern: '^t=[0-9]{1,12}(,v1=[0-9a-f]{64})+$' },
    },
  };
}

function commonHeaders(): Json {
  return {
    'X-Trace-ID': ref('headers', 'X-Trace-ID'),
    'RateLimit-Limit': ref('headers', 'RateLimit-Limit'),
    'RateLimit-Remaining': ref('headers', 'RateLimit-Remaining'),
    'RateLimit-Reset': ref('headers', 'RateLimit-Reset'),
  };
}

function errorExample(code: ErrorCode): Json {
  const { name } = ERRORS[code];
  const error: Json = { name, code, message: ERROR_CONDITIONS[code] };
  if (code === 'VALIDATION_FAILED') error.details = [{ path: 'items.0.quantity', message: 'must be at least 1' }];
  const example: Json = { summary: `${ERRORS[code].status} ${name}`, value: { error } };
  if (EXTENSION_ERROR_CODES.includes(code)) example['x-extension'] = true;
  return example;
}

function errorResponse(status: number, codes: ErrorCode[]): Json {
  const lines = codes.map((c) => `- \`${c}\` (${ERRORS[c].name}): ${ERROR_CONDITIONS[c]}`);
  const headers = commonHeaders();
  const retryAfter = status === 429 || status === 503 || (status === 409 && codes.includes('IDEMPOTENCY_KEY_IN_PROGRESS'));
  if (retryAfter) headers['Retry-After'] = ref('headers', 'Retry-After');
  if (codes.includes('TIMESTAMP_OUT_OF_WINDOW')) headers.Date = ref('headers', 'Date');
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}:\n${lines.join('\n')}`,
    headers,
    content: {
      'application/json': {
        schema: ref('schemas', 'Error'),
        examples: Object.fromEntries(codes.map((c) => [c, ref('examples', c)])),
      },
    },
    'x-error-codes': codes,
  };
}

function tagOf(path: string): string {
  const segment = path.split('/')[1] ?? '';
  const tag = TAGS.find((t) => (t.segments as readonly string[]).includes(segment));
  if (!tag) throw new Error(`no tag for path ${path}`);
  return tag.name;
}

function operationDescription(e: Endpoint): string {
  const parts: string[] = [];
  if (e.planned)
    parts.push('**Planned**: not built on production servers; the contract may change before release. A server without it answers 404.');
  if (e.extension) parts.push('**Extension**: not in the API document. A server without it answers 404 or 405.');
  parts.push(e.signed ? 'Signed write: send X-Timestamp and X-Signature.' : 'Read: identity headers only, no signature.');
  if (e.idempotency === 'required') parts.push('Idempotency-Key is required.');
  if (e.idempotency === 'optional') parts.push('Idempotency-Key is optional.');
  parts.push(
    e.rateClass === 'orders'
      ? 'Rate-limit class `orders` (100 requests per minute per API key by default), also charged to `general` (1000 per hour).'
      : 'Rate-limit class `general` (1000 requests per hour per API key by default).',
  );
  return parts.join(' ');
}

function operation(e: Endpoint, schemas: SchemaCollector): Json {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(e.pathParams ?? {})) {
    parameters.push({ name, in: 'path', required: true, schema: schemas.convert(schema, 'input') });
  }
  for (const [name, schema] of Object.entries(e.query ?? {})) {
    parameters.push({ name, in: 'query', required: false, schema: schemas.convert(schema, 'input') });
  }
  if (e.signed) parameters.push(ref('parameters', 'XTimestamp'), ref('parameters', 'XSignature'));
  if (e.idempotency === 'required') parameters.push(ref('parameters', 'IdempotencyKey'));
  if (e.idempotency === 'optional') parameters.push(ref('parameters', 'IdempotencyKeyOptional'));
  parameters.push(ref('parameters', 'Traceparent'));

  const op: Json = {
    operationId: e.id,
    summary: e.summary,
    description: operationDescription(e),
    tags: [tagOf(e.path)],
    parameters,
  };
  if (e.request) {
    op.requestBody = { required: true, content: { 'application/json': { schema: schemas.convert(e.request, 'input') } } };
  }

  const responses: Json = {};
  for (const [statusText, schema] of Object.entries(e.responses)) {
    const status = Number(statusText);
    const headers = commonHeaders();
    if (e.idempotency !== 'none') headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
    const response: Json = { description: SUCCESS_DESCRIPTIONS[`${e.id} ${status}`] ?? STATUS_TEXT[status] ?? 'Success', headers };
    if (schema) response.content = { 'application/json': { schema: schemas.convert(schema, 'output') } };
    responses[statusText] = response;
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    if (!(e.errors as readonly ErrorCode[]).includes(code)) continue;
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(status, byStatus.get(status) ?? []);
  }
  op.responses = responses;

  op['x-rate-limit-class'] = e.rateClass;
  op['x-signed'] = e.signed;
  op['x-idempotency'] = e.idempotency;
  if (e.extension) op['x-extension'] = true;
  if (e.planned) op['x-planned'] = true;
  return op;
}

const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'DELETE'];

function paths(schemas: SchemaCollector): Json {
  const out: Record<string, Json> = {};
  const endpoints = [...(ENDPOINTS as readonly Endpoint[])].sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
  const order = [...new Set((ENDPOINTS as readonly Endpoint[]).map((e) => e.path))];
  for (const path of order) out[path] = {};
  for (const e of endpoints) {
    const item = out[e.path] as Json;
    item[e.method.toLowerCase()] = operation(e, schemas);
  }
  return out;
}

function eventEnvelopeOf(type: EventType): z.ZodType {
  const option = EventEnvelope.options.find((o) => o.shape.event.value === type);
  if (!option) throw new Error(`EventEnvelope has no variant for ${type}`);
  return option;
}

function operationIdOfEvent(type: EventType): string {
  return (
    'on' +
    type
      .split(/[._]/)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')
  );
}

function webhooks(schemas: SchemaCollector): Json {
  const out: Json = {};
  for (const type of EVENT_TYPES) {
    out[type] = {
      post: {
        operationId: operationIdOfEvent(type),
        summary: EVENT_MEANINGS[type],
        description: `Delivered as \`POST <url>\` to the registered endpoint with the event envelope as body (\`event: "${type}"\`). Verify X-Webhook-Signature over the raw body before parsing. The payload never carries a voucher code or pin: fetch codes from GET /orders/{order_id}/vouchers.`,
        tags: ['webhooks'],
        security: [],
        parameters: [ref('parameters', 'WebhookId'), ref('parameters', 'WebhookTimestamp'), ref('parameters', 'WebhookSignature')],
        requestBody: { required: true, content: { 'application/json': { schema: schemas.convert(eventEnvelopeOf(type), 'output') } } },
        responses: {
          '2XX': {
            description:
              'Acknowledged. Answer within 5 s; any other outcome is retried at 10 s × 2^(n−1), capped at 1 h, ±10 % jitter, until 24 h after the first attempt.',
          },
        },
      },
    };
  }
  return out;
}

function errorCatalog(): Json[] {
  return (Object.keys(ERRORS) as ErrorCode[]).map((code) => {
    const entry: Json = { status: ERRORS[code].status, name: ERRORS[code].name, code, when: ERROR_CONDITIONS[code] };
    if (EXTENSION_ERROR_CODES.includes(code)) entry.extension = true;
    return entry;
  });
}

/** The OpenAPI 3.1.0 document of the contract. Pure and deterministic. */
export function buildOpenApi(): Json {
  const schemas = new SchemaCollector();
  // Named resources that no path references directly still belong to the document.
  schemas.convert(ErrorEnvelope, 'output');
  schemas.convert(EventEnvelope, 'output');
  for (const type of EVENT_TYPES) schemas.convert(EVENT_DATA[type], 'output');

  const builtPaths = paths(schemas);
  const builtWebhooks = webhooks(schemas);

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Voucher Fulfilment Partner API',
      version: '1.0.0',
      description: DESCRIPTION,
    },
    servers: [
      {
        url: '{base_url}',
        description:
          'Base URL including the /api/v1 prefix. Sandbox: the local `vouchers sandbox`; production URLs are issued privately to certified partners.',
        variables: { base_url: { default: SANDBOX_BASE_URL, description: 'Base URL of the environment, ending in /api/v1' } },
      },
    ],
    security: [{ ApiKey: [], ApiSecret: [] }],
    tags: TAGS.map(({ name, description }) => ({ name, description })),
    paths: builtPaths,
    webhooks: builtWebhooks,
    components: {
      schemas: schemas.sorted(),
      parameters: parameterComponents(),
      headers: headerComponents(),
      examples: Object.fromEntries((Object.keys(ERRORS) as ErrorCode[]).map((c) => [c, errorExample(c)])),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Partner API key, on every request' },
        ApiSecret: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Secret',
          description: 'Partner API secret, on every request; also the HMAC key of request signatures',
        },
      },
    },
    'x-error-catalog': errorCatalog(),
  };
}
