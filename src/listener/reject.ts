/** Rejection answers of the listener: the API's error envelope, naming the reason. */
import type { ServerResponse } from 'node:http';
import { ERRORS, type ErrorCode } from '../contract/errors.js';
import type { SignatureFailure } from '../core/signer/errors.js';

/**
 * Every reason a delivery is refused, by the listener and by `webhooks verify` alike, with
 * the code of the API's errors it is answered with (and so its HTTP status): the one list,
 * shown in docs/contract.md (Webhooks, Refusals). The reasons of a signature are those of
 * the signer (SignatureFailure).
 */
export const REJECTION_CODES = {
  missing_header: 'INVALID_SIGNATURE',
  malformed_header: 'INVALID_SIGNATURE',
  timestamp_mismatch: 'INVALID_SIGNATURE',
  no_match: 'INVALID_SIGNATURE',
  timestamp_too_old: 'TIMESTAMP_OUT_OF_WINDOW',
  timestamp_in_future: 'TIMESTAMP_OUT_OF_WINDOW',
  malformed_body: 'MALFORMED_REQUEST',
  not_envelope: 'MALFORMED_REQUEST',
  too_large: 'PAYLOAD_TOO_LARGE',
  wrong_path: 'NOT_FOUND',
  wrong_method: 'METHOD_NOT_ALLOWED',
  listener_fault: 'INTERNAL_ERROR',
} as const satisfies Record<SignatureFailure, ErrorCode> & Record<string, ErrorCode>;

export type RejectionReason = keyof typeof REJECTION_CODES;

export interface Rejection {
  status: number;
  code: ErrorCode;
  reason: RejectionReason;
  message: string;
  details?: { path: string; message: string }[];
}

export function rejection(reason: RejectionReason, message: string, details?: Rejection['details']): Rejection {
  const code = REJECTION_CODES[reason];
  return { status: ERRORS[code].status, code, reason, message, ...(details ? { details } : {}) };
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
