/**
 * Response validation against the contract. The endpoint table (and with it zod) is loaded
 * on first use, never at start-up.
 */
import type { z } from 'zod';
import type { Endpoint } from '../../contract/endpoints.js';
import { CliError } from '../errors/index.js';

/** A 2xx body that does not match the contract: the server differs from this CLI. */
export class ContractMismatchError extends CliError {
  override readonly name = 'ContractMismatch';
  constructor(message: string, readonly traceId: string | undefined, readonly issues: string[]) {
    super('unexpected', message, 'the server differs from the contract this CLI knows; see the raw body with: vouchers api --raw <METHOD> <PATH>');
  }
  override get code(): string {
    return 'CONTRACT_MISMATCH';
  }
}

type EndpointTable = typeof import('../../contract/endpoints.js');
let table: Promise<EndpointTable> | undefined;

/** The contract's endpoint table, loaded once on demand. */
export function loadEndpoints(): Promise<EndpointTable> {
  return (table ??= import('../../contract/endpoints.js'));
}

/** The endpoint a request belongs to: by id when given, else by method and path. */
export async function findEndpoint(method: string, path: string, id?: string): Promise<Endpoint | undefined> {
  const t = await loadEndpoints();
  if (id) return t.ENDPOINTS.find((e) => e.id === id);
  const m = t.matchEndpoint(method, path);
  return m && 'endpoint' in m ? m.endpoint : undefined;
}

/** One endpoint with its schemas (loads the contract). */
export async function endpointSchemas(id: string): Promise<Endpoint | undefined> {
  return (await loadEndpoints()).ENDPOINTS.find((e) => e.id === id);
}

/**
 * The schemas a response will be checked with, loaded once: the returned loader is called
 * when the request is on the wire (RequestOptions.onSent), so that building them (zod and
 * ~60 schemas) overlaps the server's work instead of delaying the request, and awaited when
 * a 2xx needs them. A failure to load is reported by whoever awaits it.
 */
export function schemaLoader(find: () => Promise<Endpoint | undefined>): () => Promise<Endpoint | undefined> {
  let loading: Promise<Endpoint | undefined> | undefined;
  return () => {
    if (!loading) {
      loading = find();
      loading.catch(() => undefined);
    }
    return loading;
  };
}

function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  const where = issue.path.length ? issue.path.map(String).join('.') : '(body)';
  return `${where}: ${issue.message}`;
}

export interface ValidationTarget {
  method: string;
  path: string;
  status: number;
  /** The parsed body (undefined when empty or not JSON). */
  data: unknown;
  text: string;
  traceId: string | undefined;
  endpoint?: Endpoint;
  schema?: z.ZodType;
  /** Told when the body carries enum values this version does not know (accepted as sent). */
  warn?: (message: string) => void;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/**
 * Validate a 2xx body; returns the parsed value (unknown fields kept). No schema for the
 * status (or no known endpoint) means nothing to check.
 */
export function validateResponse(t: ValidationTarget): unknown {
  const schema = t.schema ?? (t.endpoint ? (t.endpoint.responses[t.status] ?? undefined) : undefined);
  const where = `${t.method.toUpperCase()} ${t.path}${t.endpoint ? ` (${t.endpoint.id})` : ''}`;
  const trace = t.traceId ? ` [trace ID ${t.traceId}]` : '';
  if (t.endpoint && t.endpoint.responses[t.status] === null && !t.schema) return t.data;
  if (!schema) return t.data;
  if (t.data === undefined) {
    const what = t.text.trim() === '' ? 'an empty body' : 'a body that is not JSON';
    throw new ContractMismatchError(`the HTTP ${t.status} response of ${where} has ${what}; the contract expects a JSON object${trace}`, t.traceId, []);
  }
  // jitless: zod would otherwise generate and compile a parser per object schema on its
  // first use, which costs more than it saves on the one or few responses a command checks
  // (about 2 ms of a one-shot command). On long lists the generated parsers win back only
  // about 0.1 ms per page of 200 items.
  const result = schema.safeParse(t.data, { jitless: true });
  if (result.success) return result.data;
  // A newer server may add a status, an event type or another enum value: like unknown
  // fields, such values are kept as sent (with a warning), not refused.
  if (result.error.issues.every((i) => i.code === 'invalid_value')) {
    const values = result.error.issues.map((i) => `${i.path.map(String).join('.') || '(body)'} = ${JSON.stringify(valueAt(t.data, i.path))}`);
    t.warn?.(`${where} answered with ${values.length === 1 ? 'a value' : 'values'} this version of vouchers does not know (${values.slice(0, 3).join(', ')}${values.length > 3 ? ', …' : ''}); shown as sent. A newer vouchers may know ${values.length === 1 ? 'it' : 'them'}${trace}`);
    return t.data;
  }
  const issues = result.error.issues.map(describeIssue);
  const shown = issues.slice(0, 3).join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
  throw new ContractMismatchError(`the HTTP ${t.status} response of ${where} does not match the contract: ${shown}${trace}`, t.traceId, issues);
}
