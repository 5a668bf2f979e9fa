import { describe, expect, it } from 'vitest';
import { classifyFailure, networkError } from '../../../src/core/http/network-error.js';
import { NetworkError } from '../../../src/core/errors/index.js';

const ctx = {
  method: 'POST',
  origin: 'https://api.example.com',
  timeoutMs: 30_000,
  traceId: 'a'.repeat(32),
  idempotencyKey: undefined,
  attempts: 1,
};

describe('classifyFailure', () => {
  it('knows which failures happen before anything is sent', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(classifyFailure({ code })).toMatchObject({ phase: 'before_send', transient: true });
    }
    for (const code of ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])
      expect(classifyFailure({ code })).toMatchObject({ phase: 'after_send', transient: true });
    expect(classifyFailure({ code: 'UND_ERR_HEADERS_TIMEOUT' })).toMatchObject({ errno: 'TIMEOUT', phase: 'after_send', timeout: true });
    expect(classifyFailure({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' })).toMatchObject({ phase: 'before_send', transient: false });
    expect(classifyFailure(Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), {}))).toMatchObject(
      { errno: 'ECONNREFUSED', phase: 'before_send' },
    );
    expect(classifyFailure(new Error('odd'))).toMatchObject({ errno: 'NETWORK_ERROR', phase: 'after_send' });
    // An answer that is no HTTP came after the request was written: it may have been acted on; not retried.
    expect(classifyFailure({ code: 'HPE_INVALID_CONTENT_LENGTH' })).toMatchObject({ phase: 'after_send', transient: false });
    expect(classifyFailure(Object.assign(new Error('bad'), { name: 'HTTPParserError' }))).toMatchObject({
      errno: 'HPE_INVALID_RESPONSE',
      phase: 'after_send',
    });
  });
});

describe('networkError', () => {
  it('says whether the request may have reached the server, with the trace ID and what to do', () => {
    const refused = networkError(classifyFailure({ code: 'ECONNREFUSED' }), { ...ctx, attempts: 4 });
    expect(refused).toBeInstanceOf(NetworkError);
    expect(refused.message).toBe('could not connect to api.example.com (ECONNREFUSED, after 4 attempts); the request was not sent');
    expect(refused.traceId).toBe('a'.repeat(32));
    expect(refused.code).toBe('ECONNREFUSED');

    const keyed = networkError(classifyFailure({ code: 'UND_ERR_SOCKET' }), { ...ctx, idempotencyKey: 'k-1' });
    expect(keyed.message).toMatch(/broke after the request was sent \(UND_ERR_SOCKET\); it may have reached the server/);
    expect(keyed.hint).toContain('--idempotency-key k-1');

    const unkeyed = networkError(classifyFailure({ code: 'ECONNRESET' }), ctx);
    expect(unkeyed.hint).toMatch(/check whether the write took effect/);

    const timeout = networkError(classifyFailure({ code: 'UND_ERR_HEADERS_TIMEOUT' }), { ...ctx, method: 'GET' });
    expect(timeout.code).toBe('TIMEOUT');
    expect(timeout.message).toBe('no response from api.example.com within 30s (TIMEOUT); the request may have reached the server');

    expect(networkError(classifyFailure({ code: 'ENOTFOUND' }), ctx).message).toMatch(/^could not resolve api\.example\.com \(ENOTFOUND\)/);
  });

  it('a refused connection names the command that starts the sandbox the base URL points at, on its port and host', () => {
    const refused = (origin: string) => networkError(classifyFailure({ code: 'ECONNREFUSED' }), { ...ctx, origin }).hint;
    expect(refused('http://127.0.0.1:47950')).toBe(
      'is the server running and the base URL right? check with: vouchers doctor (for the local sandbox: vouchers sandbox start --port 47950)',
    );
    expect(refused('http://localhost:4011')).toContain('(for the local sandbox: vouchers sandbox start --port 4011 --host localhost)');
    expect(refused('http://[::1]:4012')).toContain('(for the local sandbox: vouchers sandbox start --port 4012 --host ::1)');
    // Not a sandbox this machine could start: no sandbox command at all.
    expect(refused('https://api.example.com')).toBe('is the server running and the base URL right? check with: vouchers doctor');
  });
});
