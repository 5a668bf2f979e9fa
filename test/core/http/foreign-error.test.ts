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
});
