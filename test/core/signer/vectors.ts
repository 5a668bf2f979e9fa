/** The signing vectors of test/fixtures/signing-vectors.json (computed with openssl, not with our code). */
import { readFileSync } from 'node:fs';
import { SignatureError, type SigningPathVariant } from '../../../src/core/signer/index.js';

export interface RequestVector {
  name: string;
  secret: string;
  method: string;
  target: string;
  base_path: string;
  variant: SigningPathVariant;
  path: string;
  body: string;
  timestamp: number;
  message: string;
  signature: string;
  headers: { 'X-Timestamp': string; 'X-Signature': string };
  how: string;
}

export interface WebhookVector {
  name: string;
  secrets: string[];
  body: string;
  timestamp: number;
  message: string;
  signatures: string[];
  header: string;
  how: string[];
}

export interface SigningVectors {
  note: string;
  requests: RequestVector[];
  webhooks: WebhookVector[];
}

export const vectors = JSON.parse(readFileSync(new URL('../../fixtures/signing-vectors.json', import.meta.url), 'utf8')) as SigningVectors;

export function requestVector(name: string): RequestVector {
  const v = vectors.requests.find((r) => r.name === name);
  if (!v) throw new Error(`no request vector ${name}`);
  return v;
}

export function webhookVector(name: string): WebhookVector {
  const v = vectors.webhooks.find((w) => w.name === name);
  if (!v) throw new Error(`no webhook vector ${name}`);
  return v;
}

/** Run `fn`, expect a SignatureError, return it. */
export function signatureErrorOf(fn: () => unknown): SignatureError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SignatureError) return e;
    throw e;
  }
  throw new Error('expected a SignatureError, but nothing was thrown');
}
