/**
 * idempotency.reused-key against servers that answer a reused key with another body in
 * their own way. The document says only that a retry with the same key returns the original
 * answer and runs nothing again: a second order executed fails; another refusal, or the
 * original order answered again, passes with a warning.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_CHECKS } from '../../src/certify/checks/idempotency.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { forwardTo, sendError, startLoopbackServer, type LoopbackServer, type RecordedRequest } from '../helpers/loopback-server.js';
import { emptyProfile, runChecks } from './helpers.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let sandbox: Sandbox;
let server: LoopbackServer | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true });
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Reused = 'replay' | 'execute' | { status: number; code: string };

/**
 * A server in front of the sandbox that answers a POST /orders whose key it saw with another
 * body as `reused` says: the first answer again, the order executed (sent on under a fresh
 * key: the key is not signed), or a refusal of its own.
 */
async function reusedKeyCheck(reused: Reused) {
  const origin = sandbox.baseUrl.replace(/\/api\/v1$/, '');
  const firsts = new Map<string, { body: string; status: number; answer: string }>();
  server = await startLoopbackServer(async (req: RecordedRequest, res) => {
    const key = req.headers['idempotency-key'];
    const first = typeof key === 'string' ? firsts.get(key) : undefined;
    if (req.method !== 'POST' || !req.target.endsWith('/orders') || typeof key !== 'string' || (first && first.body === req.body)) {
      await forwardTo(origin, req, res);
      return;
    }
    if (!first) {
      const answer = await fetch(origin + req.target, { method: 'POST', headers: passedOn(req), body: req.body });
      const text = await answer.text();
      firsts.set(key, { body: req.body, status: answer.status, answer: text });
      res.writeHead(answer.status, { 'content-type': 'application/json', 'x-trace-id': answer.headers.get('x-trace-id') ?? '' });
      res.end(text);
      return;
    }
    if (reused === 'replay') {
      res.writeHead(first.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
      res.end(first.answer);
    } else if (reused === 'execute') {
      await forwardTo(origin, { ...req, headers: { ...req.headers, 'idempotency-key': globalThis.crypto.randomUUID() } }, res);
    } else {
      sendError(res, reused.status, 'KeyReused', reused.code, 'this key was used with another body');
    }
  });
  const run = await runChecks(IDEMPOTENCY_CHECKS, {
    mode: 'profile',
    profile: emptyProfile({ base_url: server.baseUrl, api_key: sandbox.apiKey, api_secret: sandbox.apiSecret, exists: true }),
    only: ['idempotency.reused-key'],
  });
  return run.result('idempotency.reused-key');
}

/** The request's headers as forwardTo sends them on. */
function passedOn(req: RecordedRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host' && e[0] !== 'connection'),
  );
}

describe('idempotency.reused-key: how a server answers a reused key with another body', () => {
  it('422 IDEMPOTENCY_KEY_REUSED, as the contract says: a pass', async () => {
    const r = await reusedKeyCheck({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(r.status, r.message).toBe('pass');
    expect(r.message).toBe('refused: HTTP 422 IDEMPOTENCY_KEY_REUSED; the wallet is unchanged');
  });

  it('another refusal (409, 400) executes nothing: a pass with a warning naming what came', async () => {
    for (const [status, code] of [
      [409, 'IDEMPOTENCY_KEY_CONFLICT'],
      [400, 'IDEMPOTENCY_KEY_MISMATCH'],
    ] as const) {
      const r = await reusedKeyCheck({ status, code });
      expect(r.status, r.message).toBe('warn');
      expect(r.message).toBe(`refused: HTTP ${status} ${code}; the wallet is unchanged`);
      expect(r.warnings).toEqual([`refused with HTTP ${status} ${code}, where the contract says 422 IDEMPOTENCY_KEY_REUSED`]);
      await server?.close();
      server = undefined;
    }
  });

  it('the original order answered again, nothing executed: what the document says of a retry, a pass with a warning', async () => {
    const r = await reusedKeyCheck('replay');
    expect(r.status, `${r.message} ${r.actual ?? ''}`).toBe('warn');
    expect(r.message).toMatch(/^order ord_\S+ answered again: HTTP 201; the wallet is unchanged$/);
    expect(r.warnings).toEqual([expect.stringContaining('answered another body with the original order, where the contract says 422')]);
  });

  it('a second order executed under the key: still a failure', async () => {
    const r = await reusedKeyCheck('execute');
    expect(r.status).toBe('fail');
    expect(r.message).toBe('the server executed another body under a key already used');
    expect(r.actual).toMatch(/^HTTP 201: order ord_\S+ created$/);
  });
});
