/**
 * Request signing. The probes that must be refused send an order body the server refuses
 * once the signature passes (no items: 400 or 422), so a server that wrongly accepts a bad
 * signature still creates nothing; the status tells whether the signature was accepted.
 */
import { SIGNING_PATH_VARIANTS, type SigningPathVariant } from '../../core/signer/request.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { RawRequest, RawResponse } from '../raw.js';
import type { CheckContext, CheckDef } from '../types.js';
import { placeOrder, requireProduct } from './support.js';

/** An order the server refuses after checking the signature: nothing is created either way. */
const PROBE: RawRequest = { method: 'POST', path: '/orders', body: { items: [] } };

/**
 * Whether the server accepted the signature: any answer but 401 (and those that say
 * nothing about it: the credentials refused, the address refused, a rate limit, no such
 * route or method (a wrong base URL), a server error).
 */
function signatureAccepted(res: RawResponse): boolean {
  if (res.code === 'AUTHENTICATION_FAILED' || res.status === 403) {
    throw new CheckSkip(
      `the credentials were refused first (${describe(res)}): the signature cannot be told apart (see access.credentials)`,
    );
  }
  if (res.status === 429) {
    throw new CheckFailure(
      `not checked: the server answered 429 (rate limited${res.headers['retry-after'] ? `, retry after ${res.headers['retry-after']} s` : ''})`,
      { expected: 'an answer about the signature', actual: describe(res) },
    );
  }
  if (res.status === 404 || res.status === 405 || res.status >= 500) {
    throw new CheckFailure(
      `not checked: the server answered ${describe(res)} to ${PROBE.method} ${PROBE.path}, which says nothing about the signature`,
      {
        expected: 'an answer about the signature',
        actual: describe(res),
      },
    );
  }
  return res.status !== 401;
}

function describe(res: RawResponse): string {
  return `HTTP ${res.status}${res.code ? ` ${res.code}` : ''}`;
}

/**
 * The probes are stamped with the server's time when access.clock measured how far ours is
 * off, so each tests what it names (a bad signature, a stale timestamp) and not our clock.
 */
function onServerTime(ctx: CheckContext, request: RawRequest): RawRequest {
  const offset = Math.round(ctx.shared.clockOffsetSeconds ?? 0);
  return offset === 0 ? request : { ...request, timestampOffset: (request.timestampOffset ?? 0) + offset };
}

/** Longest Retry-After a probe waits out: an auth-failure window (a minute) left by an earlier run's probes. */
const MAX_PROBE_WAIT_S = 65;
/** Time for a check of refused probes, a wait of MAX_PROBE_WAIT_S included. */
const PROBE_CHECK_TIMEOUT_MS = 3 * 60_000;

/**
 * Send a probe; a 429 with a Retry-After of at most MAX_PROBE_WAIT_S is waited out once and
 * the probe sent again, once a signed write was accepted in this run. A second run of certify within a minute met the auth-failure limit
 * its first run's refused probes had used (5 a minute), and failed checks that never ran.
 */
async function sendProbe(ctx: CheckContext, request: RawRequest): Promise<RawResponse> {
  const res = await ctx.raw.send(onServerTime(ctx, request));
  const wait = Number(res.headers['retry-after']);
  // Only once a signed write went through: with credentials the server refuses (a revoked
  // key), every probe would wait and then say nothing about the signature.
  if (res.status !== 429 || !ctx.shared.signedWriteAccepted || !Number.isFinite(wait) || wait < 0 || wait > MAX_PROBE_WAIT_S) return res;
  ctx.raw.announceWait(request, res, wait);
  await ctx.clock.sleep(wait * 1000, ctx.signal);
  return ctx.raw.send(onServerTime(ctx, request));
}

async function mustBeRefused(ctx: CheckContext, request: RawRequest, what: string, expectedCode: string): Promise<{ message: string }> {
  const res = await sendProbe(ctx, request);
  if (signatureAccepted(res)) {
    throw new CheckFailure(`the server accepted ${what}`, {
      expected: `HTTP 401 ${expectedCode}`,
      actual: describe(res),
      reproduce: `vouchers sign POST /orders --body '{"items":[]}' (then change the body or the timestamp)`,
    });
  }
  if (res.code !== undefined && res.code !== expectedCode) ctx.warn(`refused with ${res.code}, where the contract says ${expectedCode}`);
  return { message: `refused: ${describe(res)}` };
}

export const SIGNING_CHECKS: CheckDef[] = [
  {
    id: 'signing.write-accepted',
    title: 'Signed write accepted',
    proves: 'A write signed as the CLI signs it (HMAC-SHA256 over timestamp, method, path and body) is accepted: an order is placed.',
    async run(ctx) {
      const product = await requireProduct(ctx, 'instant');
      const res = await placeOrder(ctx, { product });
      ctx.shared.signedWriteAccepted = true;
      return { message: `POST /orders answered ${res.status}: order ${res.data.order_id} ${res.data.status}` };
    },
  },
  {
    id: 'signing.tampered',
    timeoutMs: PROBE_CHECK_TIMEOUT_MS,
    title: 'Tampered signature rejected (401)',
    proves:
      'A signature computed over other bytes than the body sent is refused with 401: the server checks the signature against the raw body.',
    run: (ctx) =>
      mustBeRefused(
        ctx,
        { ...PROBE, signedBody: '{"items":[{"product_id":"x","denomination":1,"quantity":1}]}' },
        'a signature over other bytes than the body sent',
        'INVALID_SIGNATURE',
      ),
  },
  {
    id: 'signing.stale',
    timeoutMs: PROBE_CHECK_TIMEOUT_MS,
    title: 'Stale timestamp rejected (401)',
    proves: 'A correctly signed request whose timestamp is 10 minutes old is refused with 401: replays outside the 5-minute window fail.',
    run: (ctx) => mustBeRefused(ctx, { ...PROBE, timestampOffset: -600 }, 'a signature 10 minutes old', 'TIMESTAMP_OUT_OF_WINDOW'),
  },
  {
    id: 'signing.future',
    timeoutMs: PROBE_CHECK_TIMEOUT_MS,
    title: 'Future timestamp rejected (401)',
    proves: 'A correctly signed request whose timestamp is 10 minutes ahead is refused with 401.',
    run: (ctx) => mustBeRefused(ctx, { ...PROBE, timestampOffset: 600 }, 'a signature 10 minutes in the future', 'TIMESTAMP_OUT_OF_WINDOW'),
  },
  {
    id: 'signing.path-variant',
    timeoutMs: PROBE_CHECK_TIMEOUT_MS,
    title: 'Signing path variant agrees with the server',
    proves:
      'The server verifies the path the profile signs (`full`: with /api/v1 and the query; `relative`: without the prefix), and says which one it verifies.',
    async run(ctx) {
      const accepted: SigningPathVariant[] = [];
      for (const variant of SIGNING_PATH_VARIANTS) {
        if (signatureAccepted(await sendProbe(ctx, { ...PROBE, variant }))) accepted.push(variant);
      }
      if (accepted.length === 0) {
        throw new CheckFailure('the server refused both signing path variants: the API secret may be wrong', {
          expected: `a variant accepted (the profile signs ${ctx.signingPath})`,
          actual: 'HTTP 401 for full and for relative',
        });
      }
      if (!accepted.includes(ctx.signingPath)) {
        throw new CheckFailure(`the server verifies signing path "${accepted[0]}", the profile signs "${ctx.signingPath}"`, {
          expected: `signing.path ${accepted[0]}`,
          actual: `signing.path ${ctx.signingPath}`,
          reproduce: `set the profile's signing.path to ${accepted[0]} (vouchers profiles set), or VOUCHERS_SIGNING_PATH=${accepted[0]}`,
        });
      }
      if (accepted.length === 2) ctx.warn('the server accepts both variants: it does not bind the /api/v1 prefix into the signature');
      return { message: `the server verifies "${ctx.signingPath}", as the profile signs` };
    },
  },
];
