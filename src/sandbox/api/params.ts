/**
 * Query and path parameters of an endpoint, checked against its schemas from the endpoint
 * table. Every refusal of a query parameter is worded here: the parameter, the value
 * received and what is accepted (`limit must be a whole number from 1 to 200, received
 * "abc"`), never the schema library's own text.
 */
import type * as z from 'zod';
import type { Endpoint } from '../../contract/endpoints.js';
import { nearestKnown } from '../../core/run/known-word.js';
import { SandboxHttpError, type ErrorDetailEntry } from '../http/errors.js';
import { validate } from '../http/validate.js';

/** A value as a refusal quotes it: JSON-quoted (control characters escaped), a long one cut. */
export function received(raw: string): string {
  if (raw === '') return 'received an empty value';
  const max = 60;
  if (raw.length <= max) return `received ${JSON.stringify(raw)}`;
  return `received ${JSON.stringify(raw.slice(0, max)).slice(0, -1)}…" (${raw.length} characters)`;
}

/** A parameter's name as a refusal writes it: quoted when it is not a plain word (`""`, `a b`). */
function paramName(name: string): string {
  return /^[\w.[\]-]+$/.test(name) ? name : JSON.stringify(name);
}

/** 422 VALIDATION_FAILED for refused query parameters: the message says each one in full. */
export function queryRefused(details: ErrorDetailEntry[]): SandboxHttpError {
  return new SandboxHttpError('VALIDATION_FAILED', details.map((d) => `${paramName(d.path)} ${d.message}`).join('; '), details);
}

/** "a, b and c". */
function list(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]!}`;
}

/** The schema's own check in words, when it wrote one ("must be an ISO 4217 code such as USD"). */
function ownWords(schema: z.ZodType, raw: string): string | undefined {
  const result = schema.safeParse(raw);
  const message = result.success ? undefined : result.error.issues[0]?.message;
  return message !== undefined && /^must /.test(message) ? message : undefined;
}

const WHOLE = /^[+-]?\d+$/;

/**
 * What is wrong with `raw` for a parameter of this schema, in words ("must be one of A, B,
 * received "x""), or undefined when the value is accepted. Read from the schema's kind, so
 * a new parameter is described without a word here: a whole number and its bounds, one of
 * an enum's values, a date, or the schema's own "must …" wording.
 */
function refusal(schema: z.ZodType, raw: string): string | undefined {
  const def = (schema as { def?: { type?: string } }).def;
  if (def?.type === 'number') {
    const n = schema as z.ZodNumber;
    const min = n.minValue ?? -Infinity;
    const max = n.maxValue ?? Infinity;
    const range =
      Number.isFinite(min) && Number.isFinite(max) ? ` from ${min} to ${max}` : Number.isFinite(min) ? ` of ${min} or more` : '';
    // Digits only: the schema's coercion would take "0x10", "1e2" or " 5" as numbers.
    if (WHOLE.test(raw) && Number(raw) >= min && Number(raw) <= max && schema.safeParse(raw).success) return undefined;
    return `must be a whole number${range}, ${received(raw)}`;
  }
  if (def?.type === 'enum') {
    const options = (schema as z.ZodEnum).options.map(String);
    if (options.includes(raw)) return undefined;
    const near = nearestKnown(raw, options);
    return `must be one of ${list(options)}, ${received(raw)}${near ? ` (did you mean ${near}?)` : ''}`;
  }
  if (schema.safeParse(raw).success) return undefined;
  if ((schema as { format?: string | null }).format === 'date')
    return `must be a date as YYYY-MM-DD (UTC), such as 2026-11-22, ${received(raw)}`;
  if (raw === '') return 'must not be empty';
  return `${ownWords(schema, raw) ?? 'is not a value this parameter takes'}, ${received(raw)}`;
}

/** The parameter an unknown name was likely meant to be, or the list the endpoint takes. */
function unknownParameter(e: Endpoint, name: string, known: readonly string[]): string {
  const where = `${e.method} ${e.path}`;
  if (known.length === 0) return `is not a query parameter of ${where}, which takes none`;
  const near = nearestKnown(name, known);
  return `is not a query parameter of ${where}; it takes ${list(known)}${near ? ` (did you mean ${near}?)` : ''}`;
}

/** A parameter given more than once: which value would count is a guess, so none does. */
function repeated(values: readonly string[]): string {
  const shown = values.slice(0, 3).map((v) => received(v).replace(/^received /, ''));
  const quoted = values.length > 3 ? `${shown.join(', ')} and ${values.length - 3} more` : list(shown);
  return `was given ${values.length} times (${quoted}); a query parameter is given once`;
}

/**
 * The query parameters, checked: a name the endpoint does not take, a value it does not
 * accept and a parameter given more than once (no parameter of the contract is repeatable)
 * are refused together, 422 VALIDATION_FAILED with one detail per parameter, so that a typo
 * in a filter is never silently ignored, nor a second value of it.
 */
export function parseQuery(e: Endpoint, search: URLSearchParams): Record<string, unknown> {
  const schemas = e.query ?? {};
  const known = Object.keys(schemas);
  const details: ErrorDetailEntry[] = [];
  const values: Record<string, unknown> = {};
  for (const name of new Set(search.keys())) {
    const schema = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
    if (schema === undefined) {
      details.push({ path: name, message: unknownParameter(e, name, known) });
      continue;
    }
    const all = search.getAll(name);
    if (all.length > 1) {
      details.push({ path: name, message: repeated(all) });
      continue;
    }
    const raw = all[0] ?? '';
    const wrong = refusal(schema, raw);
    if (wrong === undefined) values[name] = schema.parse(raw) as unknown;
    else details.push({ path: name, message: wrong });
  }
  if (details.length > 0) throw queryRefused(details);
  return values;
}

/** Path parameters: a malformed order id is an unknown order (404); others are 422. */
export function checkPathParams(e: Endpoint, params: Record<string, string>): void {
  for (const [name, schema] of Object.entries(e.pathParams ?? {})) {
    if (schema.safeParse(params[name]).success) continue;
    if (name === 'order_id') throw new SandboxHttpError('NOT_FOUND', `Order ${params[name] ?? ''} does not exist`);
    validate(schema, params[name], [name]);
  }
}
