/**
 * Writing responses: JSON with `Content-Type: application/json; charset=utf-8`, the
 * X-Trace-ID and any extra headers; node adds the `Date` header to every response.
 */
import type { ServerResponse } from 'node:http';
import { SandboxHttpError } from './errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface Reply {
  status: number;
  /** Serialised JSON, or undefined for no body (204). */
  body?: string;
  headers: Record<string, string>;
}

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  if (status === 204) return { status, headers };
  return { status, body: JSON.stringify(value), headers: { 'Content-Type': JSON_TYPE, ...headers } };
}

export function errorReply(e: SandboxHttpError): Reply {
  return jsonReply(e.status, e.envelope(), e.headers);
}

export function send(res: ServerResponse, reply: Reply, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...reply.headers, ...extra };
  if (reply.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/** Any thrown value as a typed error: anything untyped is a 500. */
export function asHttpError(e: unknown): SandboxHttpError {
  if (e instanceof SandboxHttpError) return e;
  return new SandboxHttpError(
    'INTERNAL_ERROR',
    'The sandbox failed unexpectedly while handling the request; quote the X-Trace-ID when reporting it',
  );
}

/** Any thrown value as a reply in our envelope: typed errors keep their code, anything else is a 500. */
export function replyForError(e: unknown): Reply {
  return errorReply(asHttpError(e));
}
