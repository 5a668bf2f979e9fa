/**
 * `vouchers sign`: what the pipeline would send for a request (identity and signature
 * headers) and the exact string it signs, from the same signer the client uses.
 */
import { ConfigError, UsageError } from '../../core/errors/index.js';
import { parseBaseUrl, requestTarget, type BaseUrl } from '../../core/http/url.js';
import { findRoute } from '../../contract/routes.js';
import { err, out } from '../../core/io/io.js';
import { maskSecret } from '../../core/output/format.js';
import { printJson } from '../../core/output/print.js';
import { isSignedMethod, requestMessage, signingPath, signRequest } from '../../core/signer/request.js';
import type { Factory } from '../../core/run/factory.js';
import { refuseRepeatedBasePath } from '../api/request.js';
import { API_METHODS } from '../argument-words.js';
import { jsonErrorOffset, readBodyArg } from '../api/json-input.js';
import type { SignOptions } from './index.js';

export type { SignOptions };

export interface SignOutput {
  method: string;
  target: string;
  signing_path: 'full' | 'relative';
  signed: boolean;
  timestamp: number | null;
  headers: Record<string, string>;
  /** The exact message signed (timestamp + METHOD + path + body); null for unsigned methods. */
  string_to_sign: string | null;
  idempotency_key: 'required' | 'optional' | null;
}

const DEFAULT_BASE_PATH = '/api/v1';

export async function run(f: Factory, methodArg: string, pathArg: string, opts: SignOptions): Promise<void> {
  const method = methodArg.toUpperCase();
  if (!(API_METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`unknown method ${JSON.stringify(methodArg)}`, `use one of ${API_METHODS.join(', ')}`);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathArg)) {
    throw new UsageError(`PATH must be relative to the base URL, not ${JSON.stringify(pathArg)}`, 'e.g. vouchers sign POST /orders');
  }
  let timestamp: number | undefined;
  if (opts.timestamp !== undefined) {
    if (!/^\d{1,12}$/.test(opts.timestamp.trim()))
      throw new UsageError(
        `--timestamp ${JSON.stringify(opts.timestamp)} is not unix seconds`,
        'e.g. --timestamp 1732270000 (date +%s prints the current one)',
      );
    timestamp = Number(opts.timestamp.trim());
  }
  if (opts.body !== undefined && opts.data !== undefined)
    throw new UsageError('--body and --data are the same option: give the body once', 'e.g. --body @order.json');
  const given = opts.body ?? opts.data;
  const body = given === undefined ? undefined : await readBodyArg(f.io, given, opts.body !== undefined ? '--body' : '--data');
  if (body !== undefined && body.trim() !== '' && jsonErrorOffset(body) >= 0) {
    err(f.io, 'Warning: --body is not valid JSON; it is signed as given, but the API only accepts JSON bodies\n');
  }

  const profile = await f.profile();
  if (!profile.api_secret) {
    throw new ConfigError(
      `no API secret for profile "${profile.name}": it is the key of every signature`,
      'run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add` (or set VOUCHERS_API_SECRET)',
    );
  }
  let base: BaseUrl;
  if (profile.base_url) {
    base = parseBaseUrl(profile.base_url);
  } else {
    base = { origin: '', basePath: DEFAULT_BASE_PATH };
    err(f.io, `Note: no base URL in profile "${profile.name}"; assuming the ${DEFAULT_BASE_PATH} prefix\n`);
  }
  const { target, path } = requestTarget(base, pathArg);
  const signed = isSignedMethod(method);
  const endpoint = findRoute(method, path);
  if (!endpoint) await refuseRepeatedBasePath(f, method, pathArg, 'sign');
  const idem = endpoint?.idempotency === 'required' || endpoint?.idempotency === 'optional' ? endpoint.idempotency : null;

  const headers: Record<string, string> = {
    'X-API-Key': profile.api_key ?? '(not set)',
    'X-API-Secret': opts.revealSecret ? profile.api_secret : maskSecret(profile.api_secret),
  };
  let stringToSign: string | null = null;
  let ts: number | null = null;
  if (signed) {
    ts = timestamp ?? Math.floor(f.clock.now() / 1000);
    const signedPath = signingPath(target, base.basePath, profile.signing_path);
    const sig = signRequest({ secret: profile.api_secret, method, path: signedPath, body: body ?? '', timestamp: ts });
    headers['X-Timestamp'] = sig.headers['X-Timestamp'];
    headers['X-Signature'] = sig.headers['X-Signature'];
    stringToSign = requestMessage({ method, path: signedPath, body: body ?? '', timestamp: ts }).toString('utf8');
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8';

  if (opts.json) {
    const result: SignOutput = {
      method,
      target,
      signing_path: profile.signing_path,
      signed,
      timestamp: ts,
      headers,
      string_to_sign: stringToSign,
      idempotency_key: idem,
    };
    await printJson(f.io, result);
    return;
  }
  const lines = [`${method} ${target}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (idem === 'required')
    lines.push('Idempotency-Key: <required: one new key per logical write, the same on every retry; not part of the signature>');
  else if (idem === 'optional')
    lines.push('Idempotency-Key: <optional: one key per logical write makes retries safe; not part of the signature>');
  lines.push('');
  if (signed) {
    lines.push(`String to sign (signing.path=${profile.signing_path}: timestamp + METHOD + path + body):`, JSON.stringify(stringToSign));
  } else {
    lines.push(`${method} requests are not signed: only POST, PUT and DELETE carry X-Timestamp and X-Signature.`);
  }
  await out(f.io, lines.join('\n') + '\n');
}
