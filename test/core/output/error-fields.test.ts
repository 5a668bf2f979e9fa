/** Fields a command adds to an error's JSON envelope (CliError.withJsonFields, a typed property of the error): next to trace_id, never in place of it. */
import { describe, expect, it } from 'vitest';
import { ApiError, asCliError, CliError } from '../../../src/core/errors/index.js';
import { errorEnvelope, renderError } from '../../../src/core/output/error.js';
import { testIO } from '../../helpers/io.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const api = () =>
  new ApiError({
    status: 409,
    name: 'InsufficientInventory',
    code: 'INSUFFICIENT_INVENTORY',
    message: 'No stock',
    traceId: TRACE,
    method: 'POST',
    path: '/orders',
  });

describe('withJsonFields', () => {
  it('carries fields on any error: an unexpected one keeps its message and stack (exit 1), an abort becomes Interrupted (exit 130)', () => {
    const boom = new TypeError('boom');
    const e = asCliError(boom).withJsonFields({ idempotency_key: 'k-1' });
    expect([e.kind, e.message, e.stack, e.cause]).toEqual(['unexpected', 'boom', boom.stack, boom]);
    expect(errorEnvelope(e)).toEqual({
      error: { name: 'UnexpectedError', code: 'UNEXPECTED', message: 'boom' },
      trace_id: null,
      idempotency_key: 'k-1',
    });
    expect(asCliError(Object.assign(new Error('stop'), { name: 'AbortError' })).kind).toBe('interrupted');
    const own = api();
    expect(asCliError(own)).toBe(own);
  });

  it('adds top-level fields after the envelope and trace_id, keeping every existing field', () => {
    const e = api().withJsonFields({ idempotency_key: 'k-1' });
    expect(errorEnvelope(e)).toEqual({
      error: {
        name: 'InsufficientInventory',
        code: 'INSUFFICIENT_INVENTORY',
        message: 'No stock',
        status: 409,
        hint: 'no stock for this product right now: try another denomination or product later',
      },
      trace_id: TRACE,
      idempotency_key: 'k-1',
    });
    const io = testIO();
    renderError(io, e, { json: true, debug: false, color: false });
    expect(JSON.parse(io.stderrText())).toMatchObject({ trace_id: TRACE, idempotency_key: 'k-1' });
  });

  it('never replaces error or trace_id, skips undefined values, and merges repeated calls', () => {
    const e = new CliError('rejected', 'no', 'try again').withJsonFields({ error: 'x', trace_id: 'y', order_id: undefined, a: 1 });
    e.withJsonFields({ b: 2 });
    expect(e.jsonFields).toEqual({ a: 1, b: 2 });
    expect(errorEnvelope(e)).toEqual({
      error: { name: 'Rejected', code: 'REJECTED', message: 'no', hint: 'try again' },
      trace_id: null,
      a: 1,
      b: 2,
    });
  });

  it('leaves the readable block and errors without fields as they were', () => {
    const io = testIO();
    renderError(io, api().withJsonFields({ idempotency_key: 'k-1' }), { json: false, debug: false, color: false });
    expect(io.stderrText()).not.toContain('k-1');
    expect(Object.keys(errorEnvelope(api()))).toEqual(['error', 'trace_id']);
  });
});
