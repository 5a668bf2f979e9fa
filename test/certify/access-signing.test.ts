import { describe, expect, it } from 'vitest';
import { ACCESS_CHECKS } from '../../src/certify/checks/access.js';
import { SIGNING_CHECKS } from '../../src/certify/checks/signing.js';
import type { CheckContext } from '../../src/certify/types.js';
import { emptyProfile, runChecks } from './helpers.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';

describe('access and signing checks against the embedded sandbox', () => {
  it('pass, each with the trace IDs of its requests', async () => {
    const run = await runChecks([...ACCESS_CHECKS, ...SIGNING_CHECKS]);
    for (const r of run.results) {
      expect(r.status, `${r.id}: ${r.message}`).toBe('pass');
      expect(r.trace_ids.length, r.id).toBeGreaterThan(0);
      for (const t of r.trace_ids) expect(t).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(run.result('signing.path-variant').message).toContain('"full"');
    expect(run.result('signing.tampered').message).toContain('401');
    expect(run.warnings).toEqual([]);
  });

  it('fail with expected and actual when the profile signs the other path variant', async () => {
    const run = await runChecks(SIGNING_CHECKS, { only: ['signing.path-variant'] });
    expect(run.result('signing.path-variant').status).toBe('pass');
    // The sandbox verifies `full`; a context that signs `relative` is told which to use.
    const wrong = await runChecks([
      {
        ...SIGNING_CHECKS.find((c) => c.id === 'signing.path-variant')!,
        run: (ctx) => SIGNING_CHECKS.find((c) => c.id === 'signing.path-variant')!.run({ ...ctx, signingPath: 'relative' }),
      },
    ]);
    const r = wrong.result('signing.path-variant');
    expect(r.status).toBe('fail');
    expect(r.message).toContain('the server verifies signing path "full", the profile signs "relative"');
    expect(r.expected).toBe('signing.path full');
    expect(r.reproduce).toContain('vouchers profiles set');
  });

  it("a probe answered 429 with a Retry-After of a minute or less (an earlier run's refused probes used the auth-failure budget) is waited out once and sent again", async () => {
    const stale = SIGNING_CHECKS.find((c) => c.id === 'signing.stale')!;
    const slept: number[] = [];
    const announced: string[] = [];
    let sent = 0;
    const limited = (retryAfter: string) => ({
      ...stale,
      run: (ctx: CheckContext) =>
        stale.run({
          ...ctx,
          clock: { now: () => ctx.clock.now(), sleep: async (ms: number) => void slept.push(ms) },
          raw: {
            send: async (r) =>
              ++sent === 1
                ? {
                    status: 429,
                    headers: { 'retry-after': retryAfter },
                    text: '',
                    json: undefined,
                    traceId: 'f'.repeat(32),
                    code: 'RATE_LIMIT_EXCEEDED',
                    url: 'http://127.0.0.1/api/v1/orders',
                  }
                : ctx.raw.send(r),
            reproduce: (r) => ctx.raw.reproduce(r),
            command: (words) => ctx.raw.command(words),
            announceWait: (r, answer, seconds) => void announced.push(`${r.method} ${r.path} ${answer.status} ${seconds} s`),
          },
        }),
    });
    const writeAccepted = SIGNING_CHECKS.find((c) => c.id === 'signing.write-accepted')!;
    // Not waited for until a signed write went through (a revoked key would wait for nothing).
    const alone = await runChecks([limited('56')]);
    expect(alone.result('signing.stale').message).toBe('not checked: the server answered 429 (rate limited, retry after 56 s)');
    expect(slept).toEqual([]);
    sent = 0;
    const waited = await runChecks([writeAccepted, limited('56')]);
    expect(waited.result('signing.stale')).toMatchObject({ status: 'pass', message: expect.stringContaining('401') });
    expect(slept).toEqual([56_000]);
    // Said before the minute's wait starts, not after it.
    expect(announced).toEqual(['POST /orders 429 56 s']);
    // A longer wait is not the auth window: not checked, as before.
    sent = 0;
    slept.length = 0;
    const long = await runChecks([writeAccepted, limited('600')]);
    expect(long.result('signing.stale')).toMatchObject({
      status: 'fail',
      message: 'not checked: the server answered 429 (rate limited, retry after 600 s)',
    });
    expect(slept).toEqual([]);
  });

  it('a probe answered 404 or 5xx (a wrong base URL, a failing server) is not said to have been accepted: not checked, with what came', async () => {
    const answering = (status: number, code: string | undefined) =>
      SIGNING_CHECKS.filter((c) => c.id !== 'signing.write-accepted').map((check) => ({
        ...check,
        run: (ctx: CheckContext) =>
          check.run({
            ...ctx,
            raw: {
              ...ctx.raw,
              send: async () => ({
                status,
                headers: {},
                text: '<html>nope</html>',
                json: undefined,
                traceId: 'e'.repeat(32),
                code,
                url: 'http://127.0.0.1/api/v1/orders',
              }),
            },
          }),
      }));
    for (const [status, code] of [
      [404, undefined],
      [405, undefined],
      [500, 'INTERNAL_ERROR'],
      [503, undefined],
    ] as const) {
      const run = await runChecks(answering(status, code));
      const said = `HTTP ${status}${code ? ` ${code}` : ''}`;
      for (const id of ['signing.tampered', 'signing.stale', 'signing.future', 'signing.path-variant']) {
        const r = run.result(id);
        expect(r.status, `${id} on ${status}`).toBe('fail');
        expect(r.message, `${id} on ${status}`).toBe(
          `not checked: the server answered ${said} to POST /orders, which says nothing about the signature`,
        );
        expect(r.message).not.toContain('accept');
        expect(r.actual).toBe(said);
      }
    }
  });

  it('a 404 (a base URL without /api/v1) or a 5xx to GET /wallets is not said to allow the address, and the credentials failure names the URL asked', async () => {
    for (const [status, code] of [
      [404, 'NOT_FOUND'],
      [500, 'INTERNAL_ERROR'],
    ] as const) {
      const server = await startLoopbackServer((_req, res) =>
        sendJson(res, status, { error: { code, message: 'no' } }, { 'x-trace-id': 'c'.repeat(32) }),
      );
      try {
        const run = await runChecks(ACCESS_CHECKS, {
          mode: 'profile',
          profile: emptyProfile({ base_url: server.origin, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true }),
          only: ['access.credentials', 'access.source-ip'],
        });
        const url = `${server.origin}/wallets`;
        const hint = status === 404 ? ': the base URL may be wrong (it must include /api/v1)' : '';
        expect(run.result('access.credentials')).toMatchObject({
          status: 'fail',
          message: `GET /wallets answered HTTP ${status} ${code} from ${url}${hint}`,
        });
        const ip = run.result('access.source-ip');
        expect(ip).toMatchObject({
          status: 'fail',
          message: `not checked: GET /wallets answered HTTP ${status} ${code} from ${url}, which says nothing about the allowlist${hint}`,
          actual: `HTTP ${status} ${code}`,
          trace_ids: ['c'.repeat(32)],
        });
        expect(ip.message).not.toContain('allowed');
      } finally {
        await server.close();
      }
    }
  });

  it('--only and --skip leave checks out as skipped, with the reason', async () => {
    const run = await runChecks(ACCESS_CHECKS, { skip: ['access.clock'], only: ['access'] });
    expect(run.result('access.clock')).toMatchObject({ status: 'skip', message: 'left out by --only/--skip' });
    expect(run.result('access.credentials').status).toBe('pass');
  });
});
