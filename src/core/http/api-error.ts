/** Non-2xx answers as ApiError: decoded from the error envelope, or `HttpError`/`HTTP_<status>` when the body is not one. */
import { ApiError } from '../errors/index.js';
import type { ApiResponse } from './types.js';

interface Envelope {
  error: { name: string; code: string; message: string; details?: { path: string; message: string }[] };
}

function isEnvelope(v: unknown): v is Envelope {
  if (!v || typeof v !== 'object') return false;
  const e = (v as { error?: unknown }).error;
  if (!e || typeof e !== 'object') return false;
  const { name, code, message } = e as Record<string, unknown>;
  return typeof name === 'string' && typeof code === 'string' && typeof message === 'string';
}

function details(v: unknown): { path: string; message: string }[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const list = v
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object')
    .map((d) => ({ path: String(d.path ?? ''), message: String(d.message ?? '') }));
  return list.length ? list : undefined;
}

/** Retry-After header in whole seconds, if present. */
export function retryAfterSeconds(headers: Record<string, string>, nowMs: number): number | undefined {
  const v = headers['retry-after'];
  if (v === undefined) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Parse a body as JSON when it looks like JSON; undefined for an empty or non-JSON body. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The ApiError of a non-2xx response. */
export function apiErrorFromResponse(res: Pick<ApiResponse, 'status' | 'headers' | 'text' | 'traceId' | 'replayed'>, request: { method: string; path: string }, nowMs = Date.now()): ApiError {
  const body = parseJsonBody(res.text);
  const common = {
    status: res.status,
    traceId: res.traceId,
    retryAfter: retryAfterSeconds(res.headers, nowMs),
    replayed: res.replayed,
    method: request.method.toUpperCase(),
    path: request.path,
  };
  if (isEnvelope(body)) {
    return new ApiError({ ...common, name: body.error.name, code: body.error.code, message: body.error.message, details: details(body.error.details) });
  }
  const snippet = res.text.trim() === '' ? 'with an empty body' : 'with a body that is not the API\'s error envelope';
  return new ApiError({
    ...common,
    name: 'HttpError',
    code: `HTTP_${res.status}`,
    message: `${common.method} ${request.path} answered HTTP ${res.status} ${snippet}`,
    hint: res.status === 404 || res.status === 405
      ? 'this server may not offer this endpoint, or the base URL is wrong (it must include /api/v1)'
      : 'a proxy or a server that is not the Partner API may have answered: check the base URL (vouchers doctor)',
  });
}
