/** Rejection answers of the listener: the API's error envelope, naming the reason. */
import type { ServerResponse } from 'node:http';
import { ERRORS, type ErrorCode } from '../contract/errors.js';
import type { SignatureFailure } from '../core/signer/errors.js';

export interface Rejection {
  status: number;
  code: ErrorCode;
  message: string;
  details?: { path: string; message: string }[];
}

export function rejection(code: ErrorCode, message: string, details?: Rejection['details']): Rejection {
  return { status: ERRORS[code].status, code, message, ...(details ? { details } : {}) };
}

/** Stale or future timestamps are TIMESTAMP_OUT_OF_WINDOW; every other signature failure INVALID_SIGNATURE. */
export function signatureRejection(reason: SignatureFailure, message: string): Rejection {
  return rejection(
    reason === 'timestamp_too_old' || reason === 'timestamp_in_future' ? 'TIMESTAMP_OUT_OF_WINDOW' : 'INVALID_SIGNATURE',
    message,
  );
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendRejection(res: ServerResponse, r: Rejection, headers: Record<string, string> = {}): void {
  sendJson(
    res,
    r.status,
    {
      error: { name: ERRORS[r.code].name, code: r.code, message: r.message, ...(r.details ? { details: r.details } : {}) },
    },
    headers,
  );
}
