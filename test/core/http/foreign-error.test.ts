import { describe, expect, it } from 'vitest';
import { apiErrorFromResponse } from '../../../src/core/http/api-error.js';
import { exitCodeFor } from '../../../src/main.js';

const TRACE = 'f'.repeat(32);
function errorOf(status: number, text: string) {
  return apiErrorFromResponse({ status, headers: {}, text, traceId: TRACE, replayed: false }, { method: 'POST', path: '/orders' });
}

describe("error bodies that are not the API's envelope", () => {
  it.each([
    [
      'problem details',
      402,
      JSON.stringify({ type: 'about:blank', title: 'Payment Required', status: 402, detail: 'The USD wallet holds 10.00' }),
      'Payment Required: The USD wallet holds 10.00',
      5,
    ],
    ['{"error": "text"}', 403, JSON.stringify({ error: 'ip not allowed' }), 'ip not allowed', 3],
    ['{"message"}', 404, JSON.stringify({ message: 'Order not found', code: 'not_found' }), 'Order not found', 4],
    ['plain text', 429, 'slow down', 'slow down', 6],
    [
      "a proxy's HTML",
      502,
      '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
      '502 Bad Gateway',
      7,
    ],
  ])("%s keeps its status's exit code, shows what the server said, and the trace ID", (_what, status, text, said, exit) => {
    const e = errorOf(status, text);
    expect(e.message).toBe(`POST /orders answered HTTP ${status}: ${said}`);
    expect(e.traceId).toBe(TRACE);
    expect(exitCodeFor(e)).toBe(exit);
  });

  it("takes a code the server gave, in the API's spelling, and cuts long or unsafe text", () => {
    expect(errorOf(404, JSON.stringify({ message: 'x', code: 'not-found' })).apiCode).toBe('NOT_FOUND');
    const long = errorOf(500, `bad\u001b[31m${'x'.repeat(1000)}`);
    expect(long.message.length).toBeLessThan(340);
    expect(long.message).not.toContain('\u001b');
    expect(errorOf(500, '').message).toBe('POST /orders answered HTTP 500 with an empty body');
  });

  it("a web server's 404 page (a base URL naming a web site, not the API) points at the base URL, not at an id", () => {
    const page = errorOf(
      404,
      '<!DOCTYPE HTML>\n<html lang="en"><head><title>Error response</title></head><body><p>File not found.</p></body></html>',
    );
    expect(page.message).toBe('POST /orders answered HTTP 404: Error response');
    expect(page.hint).toBe('this server may not offer this endpoint, or the base URL is wrong (it must include /api/v1)');
    // A 404 the API words is about the resource.
    expect(errorOf(404, JSON.stringify({ message: 'Order not found' })).hint).toBe(
      "check the id and the path; another partner's resources are not visible to you",
    );
  });

  it('takes the code of {"errors": [{code, message}]} and of a problem type ending in one; the entry is the error, not a field\'s', () => {
    const listed = errorOf(409, JSON.stringify({ errors: [{ code: 'INSUFFICIENT_INVENTORY', message: 'no stock' }] }));
    expect(listed.apiCode).toBe('INSUFFICIENT_INVENTORY');
    expect(listed.message).toBe('POST /orders answered HTTP 409: no stock');
    expect(listed.details).toBeUndefined();
    const problem = errorOf(
      409,
      JSON.stringify({ type: 'https://api.example/errors/INSUFFICIENT_INVENTORY', title: 'Out of stock', status: 409, detail: 'no stock' }),
    );
    expect(problem.apiCode).toBe('INSUFFICIENT_INVENTORY');
    expect(errorOf(409, JSON.stringify({ type: 'https://api.example/probs/out-of-credit', title: 'x' })).apiCode).toBe('OUT_OF_CREDIT');
    // A type that names no code (a folder, about:blank) leaves the HTTP status's.
    expect(errorOf(409, JSON.stringify({ type: 'https://api.example/errors', title: 'x' })).apiCode).toBe('HTTP_409');
    expect(errorOf(409, JSON.stringify({ type: 'about:blank', title: 'x' })).apiCode).toBe('HTTP_409');
  });

  it("reads problem details' field errors as details", () => {
    const e = errorOf(
      422,
      JSON.stringify({
        title: 'Unprocessable',
        status: 422,
        detail: 'invalid',
        errors: [{ field: 'items.0.quantity', message: 'must be at least 1' }],
      }),
    );
    expect(e.details).toEqual([{ path: 'items.0.quantity', message: 'must be at least 1' }]);
  });

  it.each([
    [
      'a message that names no field',
      { errors: [{ detail: 'must be positive' }] },
      'must be positive',
      [{ path: '', message: 'must be positive' }],
    ],
    [
      'a path given as a list',
      {
        errors: [
          { message: 'must be positive', path: ['items', 0, 'quantity'] },
          { message: 'unknown product', path: ['items', 0, 'product_id'] },
        ],
      },
      'must be positive',
      [
        { path: 'items.0.quantity', message: 'must be positive' },
        { path: 'items.0.product_id', message: 'unknown product' },
      ],
    ],
    [
      'messages by field',
      { errors: { quantity: ['must be positive', 'must be an integer'], product_id: 'unknown' } },
      'quantity: must be positive',
      [
        { path: 'quantity', message: 'must be positive' },
        { path: 'quantity', message: 'must be an integer' },
        { path: 'product_id', message: 'unknown' },
      ],
    ],
    [
      "problem details' invalid-params",
      { type: 'about:blank', title: 'Invalid request', status: 422, 'invalid-params': [{ name: 'quantity', reason: 'must be positive' }] },
      'Invalid request',
      [{ path: 'quantity', message: 'must be positive' }],
    ],
    [
      'a JSON:API source pointer',
      { errors: [{ title: 'Invalid', detail: 'must be positive', source: { pointer: '/items/0/quantity' } }] },
      'items.0.quantity: must be positive',
      [{ path: 'items.0.quantity', message: 'must be positive' }],
    ],
  ])('a 422 with %s: every message, with its field when the body names one', (_what, body, headline, details) => {
    const e = errorOf(422, JSON.stringify(body));
    expect(e.message).toBe(`POST /orders answered HTTP 422: ${headline}`);
    expect(e.details).toEqual(details);
    expect(e.hint).toBeUndefined();
  });

  it('a detail that names no field is printed without an empty field name', async () => {
    const { testIO } = await import('../../helpers/io.js');
    const { renderError } = await import('../../../src/core/output/error.js');
    const io = testIO();
    renderError(io, errorOf(422, JSON.stringify({ errors: [{ detail: 'must be positive' }] })), {
      json: false,
      debug: false,
      color: false,
    });
    await new Promise((r) => setImmediate(r));
    expect(io.stderrText()).toMatch(/^ {2}field {5}must be positive$/m);
    expect(io.stderrText()).not.toContain('field     :');
  });
});
