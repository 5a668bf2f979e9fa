/** Every error of the decisions file: status, PascalCase name, UPPER_SNAKE code. */
export const ERRORS = {
  MALFORMED_REQUEST: { status: 400, name: 'MalformedRequest' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, name: 'IdempotencyKeyRequired' },
  AUTHENTICATION_FAILED: { status: 401, name: 'AuthenticationFailed' },
  INVALID_SIGNATURE: { status: 401, name: 'InvalidSignature' },
  TIMESTAMP_OUT_OF_WINDOW: { status: 401, name: 'TimestampOutOfWindow' },
  INSUFFICIENT_FUNDS: { status: 402, name: 'InsufficientFunds' },
  IP_NOT_ALLOWED: { status: 403, name: 'IpNotAllowed' },
  PRODUCT_NOT_AVAILABLE: { status: 403, name: 'ProductNotAvailable' },
  NOT_FOUND: { status: 404, name: 'NotFound' },
  WEBHOOK_NOT_REGISTERED: { status: 404, name: 'WebhookNotRegistered' },
  METHOD_NOT_ALLOWED: { status: 405, name: 'MethodNotAllowed' },
  INSUFFICIENT_INVENTORY: { status: 409, name: 'InsufficientInventory' },
  ORDER_NOT_CANCELLABLE: { status: 409, name: 'OrderNotCancellable' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, name: 'IdempotencyKeyInProgress' },
  PAYLOAD_TOO_LARGE: { status: 413, name: 'PayloadTooLarge' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, name: 'UnsupportedMediaType' },
  VALIDATION_FAILED: { status: 422, name: 'ValidationFailed' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, name: 'IdempotencyKeyReused' },
  RATE_LIMIT_EXCEEDED: { status: 429, name: 'RateLimitExceeded' },
  INTERNAL_ERROR: { status: 500, name: 'InternalError' },
  SERVICE_UNAVAILABLE: { status: 503, name: 'ServiceUnavailable' },
} as const satisfies Record<string, { status: number; name: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Errors the decisions file lists that the document leaves implicit. 415 is our own
 * addition (the decisions file puts "wrong content type" under 400 MALFORMED_REQUEST for a
 * body that is not JSON; a request whose Content-Type is not JSON at all gets 415).
 * WEBHOOK_NOT_REGISTERED is the 404 of GET and DELETE /webhooks (extensions themselves)
 * when no endpoint is registered: a plain 404 there could also mean a server without them.
 */
export const EXTENSION_ERROR_CODES: readonly ErrorCode[] = ['UNSUPPORTED_MEDIA_TYPE', 'WEBHOOK_NOT_REGISTERED'];
