/** Non-2xx answers as ApiError: decoded from the error envelope, or `HttpError`/`HTTP_<status>` when the body is not one. */
import { ApiError } from '../errors/index.js';
import type { ApiResponse } from './types.js';
import { isPlainErrorCode, maskText } from '../output/mask-text.js';

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

type Detail = { path: string; message: string };

/** A field as a server names it: `items.0.quantity`, `["items",0,"quantity"]`, a JSON pointer `/items/0/quantity`. */
function fieldName(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join('.');
  if (typeof v !== 'string' && typeof v !== 'number') return '';
  const s = String(v);
  return s.startsWith('/') ? s.slice(1).split('/').join('.') : s;
}

const textOf = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/**
 * Every field message an error body holds, whatever its shape: a list of entries naming the
 * field under `path`, `field`, `pointer`, `source.pointer`, `param`, `name` or `loc` and the
 * message under `message`, `detail`, `msg`, `reason` or `title` (an entry without a field is
 * kept, its path empty); or an object of messages by field (`{"quantity": ["…", "…"]}`).
 */
function fieldMessages(v: unknown): Detail[] {
  if (Array.isArray(v)) {
    return v.flatMap((e) => {
      if (typeof e === 'string') return [{ path: '', message: oneLine(e) }];
      if (!e || typeof e !== 'object') return [];
      const d = e as Record<string, unknown>;
      const source = d.source !== null && typeof d.source === 'object' ? (d.source as Record<string, unknown>) : {};
      const path = fieldName(d.path ?? d.field ?? d.pointer ?? source.pointer ?? source.parameter ?? d.param ?? d.name ?? d.loc);
      const message = oneLine(textOf(d.message ?? d.detail ?? d.msg ?? d.reason ?? d.title));
      return message === '' ? [] : [{ path, message }];
    });
  }
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v as Record<string, unknown>).flatMap(([field, m]) =>
    (Array.isArray(m) ? m : [m]).map((x) => ({ path: field, message: oneLine(textOf(x)) })).filter((d) => d.message !== ''),
  );
}

/** The first field message of a list or map of them, `field: message` when it names one. */
function firstField(v: unknown): string | undefined {
  const d = fieldMessages(v)[0];
  return d && (d.path ? `${d.path}: ${d.message}` : d.message);
}

function details(v: unknown): Detail[] | undefined {
  const list = Array.isArray(v) ? fieldMessages(v) : [];
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
/** The body of each answer parsed by parsedAnswer: parsed once, for its log line and for its caller. */
const PARSED = new WeakMap<object, unknown>();

/** An answer's body parsed (parseJsonBody), once however often asked for. */
export function parsedAnswer(response: { text: string }): unknown {
  if (PARSED.has(response)) return PARSED.get(response);
  const parsed = parseJsonBody(response.text);
  PARSED.set(response, parsed);
  return parsed;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Longest piece of a server's own error text shown in a message. */
const MAX_TEXT = 300;

/** Printable text on one line, cut to MAX_TEXT: a server's words, safe for a terminal, codes and secrets masked (mask-text.ts). */
function oneLine(text: string): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return maskText(flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat);
}

/** The readable text of an HTML page (a proxy's error page): its title, else its text. */
function htmlText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const text = title && title.trim() !== '' ? title : html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * What a server said in an error body that is not the API's envelope: `{"error": "text"}`,
 * `{"error": {"message"}}`, `{"message"}`, RFC 9457 problem details (`title`, `detail`),
 * `{"errors": [{"message"}]}`, plain text, or an HTML page from a proxy.
 */
/** Whether an `errors` entry names the field it is about. */
function hasField(d: Record<string, unknown>): boolean {
  const source = d.source !== null && typeof d.source === 'object' ? (d.source as Record<string, unknown>) : {};
  return [d.path, d.field, d.pointer, source.pointer, source.parameter, d.param, d.name, d.loc].some(
    (v) => v !== undefined && v !== null && v !== '',
  );
}

/** The code at the end of a problem-details `type` URI (`https://…/errors/INSUFFICIENT_INVENTORY`, `…/insufficient-inventory`). */
function typeCode(type: unknown): string | undefined {
  if (typeof type !== 'string' || type === 'about:blank') return undefined;
  const last = /([A-Za-z][\w.-]{0,63})\/?$/.exec(type)?.[1];
  // A word of several parts or in capitals is a code; a bare `errors` or `problem` is a folder.
  return last !== undefined && (/[_-]/.test(last) || /^[A-Z0-9_]+$/.test(last)) ? last : undefined;
}

export function foreignError(text: string, body: unknown): { message?: string; code?: string; details?: Detail[] } {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const inner = b.error !== null && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : undefined;
    const list = Array.isArray(b.errors) ? b.errors.filter((e): e is Record<string, unknown> => !!e && typeof e === 'object') : [];
    const title = str(b.title);
    const detail = str(b.detail);
    const message =
      str(inner?.message) ??
      str(b.error) ??
      str(b.message) ??
      str(b.error_description) ??
      (detail && title && !detail.startsWith(title) ? `${title}: ${detail}` : (detail ?? title)) ??
      str(list[0]?.message) ??
      str(b.description) ??
      // The only message is a field's: it is the headline too (`{"errors": [{"detail": "…"}]}`).
      firstField(b.errors);
    const rawCode =
      str(inner?.code) ??
      str(b.code) ??
      str(b.error_code) ??
      (str(b.error) && /^[A-Za-z][\w.-]{0,63}$/.test(b.error as string) ? (b.error as string) : undefined) ??
      // `{"errors": [{"code": …, "message": …}]}`, and problem details whose `type` ends in a code (`…/INSUFFICIENT_INVENTORY`).
      str(list[0]?.code) ??
      typeCode(b.type);
    const code =
      rawCode && /^[A-Za-z][\w.-]{0,63}$/.test(rawCode) && isPlainErrorCode(rawCode)
        ? rawCode.replace(/[.-]/g, '_').toUpperCase()
        : undefined;
    // Field messages: `errors` (a list, or messages by field), problem details' `invalid-params`
    // (RFC 7807) or `errors`, and those inside an `error` object.
    // An `errors` entry naming no field but carrying a code is the error itself (its message the headline), not a field's.
    const fieldErrors = list.length > 0 && list.every((e) => str(e.code) && !hasField(e)) ? [] : b.errors;
    const details = [fieldErrors, b['invalid-params'], b.invalid_params, inner?.details, inner?.errors].flatMap(fieldMessages);
    return {
      message: message === undefined ? undefined : oneLine(message),
      code,
      details: details.length ? details : undefined,
    };
  }
  if (typeof body === 'string' || typeof body === 'number') return { message: oneLine(String(body)) };
  const trimmed = text.trim();
  if (trimmed === '') return {};
  return { message: oneLine(isMarkup(trimmed) ? htmlText(trimmed) : trimmed) || undefined };
}

/** An HTML (or XML) page: what a web server or a proxy answers, not a JSON API. */
function isMarkup(text: string): boolean {
  return /^<(!doctype|html|head|body|\?xml)|<\/[a-z]+>/i.test(text);
}

/** The ApiError of a non-2xx response. */
export function apiErrorFromResponse(
  res: Pick<ApiResponse, 'status' | 'headers' | 'text' | 'traceId' | 'replayed'>,
  request: { method: string; path: string; earlierMayHaveReached?: boolean; baseUrl?: string },
  nowMs = Date.now(),
): ApiError {
  const body = parseJsonBody(res.text);
  const common = {
    status: res.status,
    traceId: res.traceId,
    retryAfter: retryAfterSeconds(res.headers, nowMs),
    replayed: res.replayed,
    method: request.method.toUpperCase(),
    path: request.path,
    ...(request.earlierMayHaveReached ? { earlierMayHaveReached: true } : {}),
    ...(request.baseUrl !== undefined ? { baseUrl: request.baseUrl } : {}),
  };
  if (isEnvelope(body)) {
    return new ApiError({
      ...common,
      name: body.error.name,
      code: isPlainErrorCode(body.error.code) ? body.error.code : `HTTP_${res.status}`,
      message: maskText(body.error.message),
      details: details(body.error.details),
    });
  }
  // Not our envelope: the status still decides the exit code; show what the server said.
  const said = foreignError(res.text, body);
  const what = said.message !== undefined ? `: ${said.message}` : res.text.trim() === '' ? ' with an empty body' : '';
  return new ApiError({
    ...common,
    name: 'HttpError',
    foreign: true,
    code: said.code ?? `HTTP_${res.status}`,
    message: `${common.method} ${request.path} answered HTTP ${res.status}${what}`,
    details: said.details,
    // A 404 that says something is about the resource (the server read the path); a bare one,
    // or a web page (a web server's or a proxy's, not the API's), may be a path this server does not have.
    hint:
      res.status === 405 || (res.status === 404 && (said.message === undefined || isMarkup(res.text.trim())))
        ? 'this server may not offer this endpoint, or the base URL is wrong (it must include /api/v1)'
        : res.status === 404
          ? "check the id and the path; another partner's resources are not visible to you"
          : said.message === undefined && !said.details && res.status < 500
            ? 'a proxy or a server that is not the Partner API may have answered: check the base URL (vouchers doctor)'
            : undefined,
  });
}
