import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError, NetworkError, UsageError } from '../../../src/core/errors/index.js';
import { ContractMismatchError } from '../../../src/core/http/validate.js';
import { errorEnvelope, hintFor, renderError } from '../../../src/core/output/error.js';
import { testIO } from '../../helpers/io.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const ANSI = /\u001b\[[0-9;]*m/;
const api = (over: Partial<ConstructorParameters<typeof ApiError>[0]> = {}) =>
  new ApiError({
    status: 402,
    name: 'InsufficientFunds',
    code: 'INSUFFICIENT_FUNDS',
    message: 'The USD wallet holds 10.00 USD',
    traceId: TRACE,
    method: 'POST',
    path: '/orders',
    ...over,
  });

function render(error: unknown, options: { json?: boolean; debug?: boolean; tty?: boolean; env?: Record<string, string> } = {}): string {
  const io = testIO({ tty: options.tty, env: options.env });
  renderError(io, error, { json: options.json ?? false, debug: options.debug ?? false, color: true });
  return io.stderrText();
}

describe('renderError as a block', () => {
  it('an API error: message, name and code, status and request, trace ID, hint; no stack', () => {
    const text = render(api());
    expect(text).toBe(
      [
        'Error: The USD wallet holds 10.00 USD',
        '  name      InsufficientFunds (INSUFFICIENT_FUNDS)',
        '  status    HTTP 402 on POST /orders',
        `  trace ID  ${TRACE}`,
        '  hint      top up the wallet, or order less: vouchers wallets list',
        '',
      ].join('\n'),
    );
  });

  it('field details, Retry-After, and a trace ID that never came', () => {
    const text = render(
      api({
        status: 422,
        name: 'ValidationFailed',
        code: 'VALIDATION_FAILED',
        details: [{ path: 'items.0.quantity', message: 'must be at most 100' }],
        traceId: undefined,
        retryAfter: 3,
      }),
    );
    expect(text).toContain('  field     items.0.quantity: must be at most 100');
    expect(text).toContain('  retry     after 3 s');
    expect(text).toContain('  trace ID  (none returned)');
  });

  it('a detail the message already says word for word is not repeated; a refusal of a GET asks to fix its parameters', () => {
    const words = 'must be a whole number from 1 to 200, received "abc"';
    const text = render(
      api({
        status: 422,
        name: 'ValidationFailed',
        code: 'VALIDATION_FAILED',
        message: `limit ${words}; type is not a query parameter`,
        details: [
          { path: 'limit', message: words },
          { path: 'type', message: 'is not one this endpoint takes' },
        ],
        method: 'GET',
        path: '/products',
      }),
    );
    expect(text).toBe(
      [
        `Error: limit ${words}; type is not a query parameter`,
        '  name      ValidationFailed (VALIDATION_FAILED)',
        '  status    HTTP 422 on GET /products',
        '  field     type: is not one this endpoint takes',
        `  trace ID  ${TRACE}`,
        '  hint      fix the parameters named above and retry',
        '',
      ].join('\n'),
    );
    // A body's refusal keeps its field lines and its hint.
    const body = render(
      api({
        status: 422,
        name: 'ValidationFailed',
        code: 'VALIDATION_FAILED',
        message: 'The request is not valid (items.0.quantity: must be at most 100); see details',
        details: [{ path: 'items.0.quantity', message: 'must be at most 100' }],
      }),
    );
    expect(body).toContain('  field     items.0.quantity: must be at most 100');
    expect(body).toContain('  hint      fix the fields named above and retry');
  });

  it("the server's words reach the terminal escaped: no escape sequence, no carriage return writing over the block", () => {
    const text = render(
      api({
        status: 422,
        name: 'Validation\u001b[2JFailed',
        code: 'VALIDATION_FAILED',
        message: 'Bad \u001b[2J\u001b]0;pwned\u0007 東京ギフトカード\r\nreference',
        details: [{ path: 'ref\u001b[2J', message: 'bad\u001b[31m red' }],
      }),
      { tty: true, env: { NO_COLOR: '1' } },
    );
    expect(text).not.toMatch(/[\u001b\u0007\r]/);
    expect(text).toContain('Error: Bad \\u001b[2J\\u001b]0;pwned\\u0007 東京ギフトカード\\u000d\\u000areference');
    expect(text).toContain('  name      Validation\\u001b[2JFailed (VALIDATION_FAILED)');
    expect(text).toContain('  field     ref\\u001b[2J: bad');
  });

  it('a network error names what failed, with its trace ID and hint', () => {
    const text = render(
      new NetworkError('could not connect to 127.0.0.1:1 (ECONNREFUSED)', TRACE, 'ECONNREFUSED', 'is the server running?'),
    );
    expect(text).toContain('Error: could not connect to 127.0.0.1:1');
    expect(text).toContain('  code      ECONNREFUSED');
    expect(text).toContain(`  trace ID  ${TRACE}`);
    expect(text).toContain('  hint      is the server running?');
  });

  it('a body that breaks the contract still shows its trace ID, in the block and in JSON', () => {
    const e = new ContractMismatchError('the HTTP 200 response of GET /wallets does not match the contract', TRACE, [
      'data.0.currency: required',
    ]);
    expect(render(e)).toContain(`  trace ID  ${TRACE}`);
    expect(JSON.parse(render(e, { json: true }))).toMatchObject({ error: { code: 'CONTRACT_MISMATCH' }, trace_id: TRACE });
  });

  it('a usage error is two lines: the problem and the hint', () => {
    expect(render(new UsageError('--limit "x" is not a positive whole number', 'e.g. --limit 20'))).toBe(
      'Error: --limit "x" is not a positive whole number\n  hint      e.g. --limit 20\n',
    );
    expect(render(new ConfigError('no profile named "x"', 'profiles: a'))).toContain('  code      CONFIG_ERROR');
  });

  it('a bug says to run with --debug; --debug adds the stack', () => {
    const bug = new TypeError('cannot read properties of undefined');
    const plain = render(bug);
    expect(plain).toContain('Unexpected error: cannot read properties of undefined');
    expect(plain).toContain('run again with --debug');
    expect(plain).not.toMatch(/\n\s+at /);
    expect(render(bug, { debug: true })).toMatch(/\n\s+at /);
  });

  it('colours only on a terminal, never with NO_COLOR', () => {
    expect(render(api(), { tty: true })).toMatch(ANSI);
    expect(render(api(), { tty: true, env: { NO_COLOR: '1' } })).not.toMatch(ANSI);
    expect(render(api())).not.toMatch(ANSI);
  });
});

describe('renderError with --json', () => {
  it('prints the API envelope plus status, the hint of the text output and trace_id on one line', () => {
    const text = render(api({ retryAfter: 2 }), { json: true });
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(text)).toEqual({
      error: {
        name: 'InsufficientFunds',
        code: 'INSUFFICIENT_FUNDS',
        message: 'The USD wallet holds 10.00 USD',
        status: 402,
        retry_after: 2,
        hint: 'top up the wallet, or order less: vouchers wallets list',
      },
      trace_id: TRACE,
    });
  });

  it("an API error's hint names the run's profile in its commands, as the text output does", () => {
    const envelope = errorEnvelope(api({ status: 404, name: 'NotFound', code: 'NOT_FOUND', method: 'GET', path: '/orders/12345' }), {
      profile: 'acme',
    });
    expect((envelope.error as { hint?: string }).hint).toBe(
      hintFor(api({ status: 404, name: 'NotFound', code: 'NOT_FOUND', method: 'GET', path: '/orders/12345' }), { profile: 'acme' }),
    );
    expect((envelope.error as { hint?: string }).hint).toContain('vouchers --profile acme orders list');
  });

  it('an API error of a status no hint fits carries no hint field', () => {
    const envelope = errorEnvelope(api({ status: 418, name: 'Teapot', code: 'TEAPOT' }));
    expect(envelope.error).not.toHaveProperty('hint');
  });

  it('CLI errors take the same shape, with their hint; trace_id is null when there is none', () => {
    expect(errorEnvelope(new NetworkError('refused', TRACE, 'ECONNREFUSED', 'start it'))).toEqual({
      error: { name: 'NetworkError', code: 'ECONNREFUSED', message: 'refused', hint: 'start it' },
      trace_id: TRACE,
    });
    expect(errorEnvelope(new UsageError('bad'))).toEqual({ error: { name: 'UsageError', code: 'USAGE', message: 'bad' }, trace_id: null });
    expect(errorEnvelope(new Error('boom'))).toEqual({
      error: { name: 'UnexpectedError', code: 'UNEXPECTED', message: 'boom' },
      trace_id: null,
    });
  });
});

describe('hintFor', () => {
  it('a 503 asks to reuse the idempotency key only for writes', () => {
    const read = api({
      status: 503,
      name: 'ServiceUnavailable',
      code: 'SERVICE_UNAVAILABLE',
      method: 'GET',
      path: '/wallets',
      retryAfter: 1,
    });
    const write = api({ status: 503, name: 'ServiceUnavailable', code: 'SERVICE_UNAVAILABLE', method: 'POST', path: '/orders' });
    expect(hintFor(read)).toMatch(/^the service is unavailable: retry after 1 s;/);
    expect(hintFor(read)).not.toContain('idempotency');
    expect(hintFor(write)).toContain('same --idempotency-key');
  });

  it('falls back on the status for codes it does not know', () => {
    expect(hintFor(api({ status: 401, name: 'Nope', code: 'KEY_EXPIRED' }))).toContain('vouchers doctor');
    expect(hintFor(api({ status: 502, name: 'HttpError', code: 'HTTP_502', method: 'GET' }))).toMatch(/retry later/);
    expect(hintFor(api({ status: 429, name: 'TooMany', code: 'SLOW_DOWN', retryAfter: 5 }))).toContain('wait 5 s');
    expect(hintFor(api({ status: 418, name: 'Teapot', code: 'TEAPOT' }))).toBeUndefined();
  });

  it('every error code of the contract has a hint', async () => {
    const { ERRORS } = await import('../../../src/contract/errors.js');
    for (const [code, { status, name }] of Object.entries(ERRORS)) {
      expect(hintFor(api({ status, name, code, method: 'POST' })), code).toMatch(/\w/);
    }
  });

  it('no hint carries a placeholder (<id>, NAME, KEY VALUE): the real value, or words without one', async () => {
    const { ERRORS } = await import('../../../src/contract/errors.js');
    for (const [code, { status, name }] of Object.entries(ERRORS)) {
      for (const method of ['GET', 'POST']) {
        const hint = hintFor(api({ status, name, code, method, path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/cancel' }));
        expect(hint, code).not.toMatch(/<\w+>|\bNAME\b|\bKEY\b|\bVALUE\b/);
      }
    }
  });

  it('ORDER_NOT_CANCELLABLE names the order; MALFORMED_REQUEST about X-Sandbox-Simulate is not told to send a JSON body', () => {
    const cancel = api({
      status: 409,
      name: 'OrderNotCancellable',
      code: 'ORDER_NOT_CANCELLABLE',
      path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/cancel',
    });
    expect(hintFor(cancel)).toBe(
      'only PENDING orders can be cancelled: see its status with vouchers orders get ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
    );
    const simulate = api({
      status: 400,
      name: 'MalformedRequest',
      code: 'MALFORMED_REQUEST',
      method: 'GET',
      path: '/wallets',
      message: 'X-Sandbox-Simulate "bogus" is not a fault the sandbox knows; use one of rate_limit, server_error',
    });
    expect(hintFor(simulate)).toBe('give X-Sandbox-Simulate one of the faults the message lists, or leave the header out');
    const body = api({
      status: 400,
      name: 'MalformedRequest',
      code: 'MALFORMED_REQUEST',
      method: 'POST',
      path: '/orders',
      message: 'The request body is not valid JSON',
    });
    expect(hintFor(body)).toContain('send a JSON body');
  });

  it('IDEMPOTENCY_KEY_REUSED: the first request may have made an order or payout; look before using a new key', () => {
    const reused = (path: string) =>
      hintFor(api({ status: 422, name: 'IdempotencyKeyReused', code: 'IDEMPOTENCY_KEY_REUSED', method: 'POST', path }), { profile: 'px' });
    expect(reused('/orders')).toBe(
      'this key was already used, with a different body: the order that first request made may exist. Look before making another: vouchers --profile px orders list (with --reference, by the reference it was given); to see its result, repeat the first command exactly, with this key. A new key makes a new order',
    );
    expect(reused('/payouts')).toContain(
      'the payout that first request made may exist. Look before making another: vouchers --profile px transactions list --type PAYOUT',
    );
    expect(reused('/payouts')).not.toMatch(/^use a new key/);
  });

  it("a hint's commands reach the server this run chose: its --profile and --base-url are repeated, once", () => {
    const globals = { profile: 'px', baseUrl: 'http://127.0.0.1:4010/api/v1' };
    const refused = new NetworkError(
      'could not connect to 127.0.0.1:4010 (ECONNREFUSED)',
      TRACE,
      'ECONNREFUSED',
      'is the server running and the base URL right? check with: vouchers doctor (for a local server: vouchers sandbox start)',
    );
    expect(hintFor(refused, globals)).toBe(
      'is the server running and the base URL right? check with: vouchers --profile px --base-url http://127.0.0.1:4010/api/v1 doctor (for a local server: vouchers sandbox start)',
    );
    expect(hintFor(api(), { profile: 'px' })).toBe('top up the wallet, or order less: vouchers --profile px wallets list');
    // Written with them already (suggestedCommand): not repeated.
    expect(hintFor(api({ status: 401, name: 'Nope', code: 'KEY_EXPIRED' }), { profile: 'px' })).toBe(
      'the server refused these credentials: vouchers --profile px doctor checks them',
    );
    // Without them, as written.
    expect(hintFor(refused)).toContain('check with: vouchers doctor (');
  });

  it('a refused signature or credentials from the environment: the hint names the variable, and not the profile alone', () => {
    const env = { envCredentials: ['VOUCHERS_API_SECRET'] };
    expect(hintFor(api({ status: 401, name: 'InvalidSignature', code: 'INVALID_SIGNATURE' }), env)).toContain(
      "check the API secret (the API secret this run used came from VOUCHERS_API_SECRET in the environment, not from the profile) and the profile's signing.path",
    );
    expect(hintFor(api({ status: 403, name: 'Nope', code: 'KEY_EXPIRED' }), { envCredentials: ['VOUCHERS_API_KEY'] })).toBe(
      'the server refused these credentials (the API key this run used came from VOUCHERS_API_KEY in the environment, not from the profile): vouchers doctor checks them',
    );
    expect(hintFor(api({ status: 401, name: 'InvalidSignature', code: 'INVALID_SIGNATURE' }), { envCredentials: [] })).toBe(
      "the signature did not match: check the API secret and the profile's signing.path (full|relative); compare with vouchers sign",
    );
  });

  it('a hint the error carries wins', () => {
    expect(hintFor(new ApiError({ status: 404, name: 'HttpError', code: 'HTTP_404', message: 'x', hint: 'no such endpoint here' }))).toBe(
      'no such endpoint here',
    );
  });
});
