/**
 * Identity of every API request (X-API-Key + X-API-Secret, one 401 answer for every
 * failure), the key's IP allowlist (403), and request signatures of writes (401).
 */
import type { IncomingMessage } from 'node:http';
import { hash, timingSafeEqual } from 'node:crypto';
import { SignatureError } from '../../core/signer/errors.js';
import { signingPath, verifyRequest } from '../../core/signer/request.js';
import { addressAllowed } from '../core/cidr.js';
import { SandboxHttpError } from '../http/errors.js';
import type { Runtime } from '../runtime.js';
import type { ApiKeyRecord, PartnerRecord } from '../state/types.js';
import { own } from '../core/records.js';

export const API_BASE_PATH = '/api/v1';

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Constant-time string equality (hashes first, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  // crypto.hash: one call, no Hash object (every request authenticates).
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}

export function authFailed(): SandboxHttpError {
  return new SandboxHttpError('AUTHENTICATION_FAILED', 'Authentication failed: send a valid, unrevoked X-API-Key and its X-API-Secret');
}

export interface Identity {
  key: ApiKeyRecord;
  partner: PartnerRecord;
}

/** The key named by X-API-Key, if it exists (used to charge failed attempts to it). */
export function claimedKey(rt: Runtime, req: IncomingMessage): ApiKeyRecord | undefined {
  const key = headerValue(req, 'x-api-key');
  return key ? own(rt.state.keys, key) : undefined;
}

export function authenticate(rt: Runtime, req: IncomingMessage): Identity {
  const key = claimedKey(rt, req);
  const secret = headerValue(req, 'x-api-secret') ?? '';
  const ok = key !== undefined && key.revoked_at === null && safeEqual(secret, key.api_secret);
  const partner = key ? own(rt.state.partners, key.partner_id) : undefined;
  if (!ok || !key || !partner) throw authFailed();
  return { key, partner };
}

export function checkAllowlist(key: ApiKeyRecord, remoteAddress: string | undefined): void {
  if (!addressAllowed(remoteAddress, key.allowlist)) {
    throw new SandboxHttpError(
      'IP_NOT_ALLOWED',
      `Requests from ${remoteAddress ?? 'this address'} are not allowed for this API key; ask for the address to be added to the key's allowlist`,
    );
  }
}

export function verifySignature(rt: Runtime, req: IncomingMessage, key: ApiKeyRecord, rawBody: Buffer): void {
  const verifyAt = (nowSeconds: number) =>
    verifyRequest({
      secret: key.api_secret,
      method: req.method ?? 'GET',
      path: signingPath(req.url ?? '/', API_BASE_PATH, rt.config.signingPath),
      body: rawBody,
      timestampHeader: headerValue(req, 'x-timestamp'),
      signatureHeader: headerValue(req, 'x-signature'),
      nowSeconds,
    });
  try {
    try {
      verifyAt(rt.clock.nowSeconds());
    } catch (e) {
      // The sandbox clock moved on (admin clock advance, to reach a retention or a retry
      // schedule): a request signed by the partner's own clock is in the window of real time.
      const late = e instanceof SignatureError && (e.reason === 'timestamp_too_old' || e.reason === 'timestamp_in_future');
      if (!late || rt.clock.offsetMs === 0) throw e;
      verifyAt(rt.clock.baseSeconds());
    }
  } catch (e) {
    if (!(e instanceof SignatureError)) throw e;
    if (e.reason === 'timestamp_too_old' || e.reason === 'timestamp_in_future') {
      throw new SandboxHttpError('TIMESTAMP_OUT_OF_WINDOW', `${e.message} (server time is in the Date header)`);
    }
    const variant =
      rt.config.signingPath === 'full'
        ? 'the full request target including /api/v1 and the query string'
        : 'the path without the /api/v1 prefix';
    throw new SandboxHttpError('INVALID_SIGNATURE', `${e.message}; this server signs ${variant}`);
  }
}
