/** Query and path parameters of an endpoint, validated with its schemas from the endpoint table. */
import * as z from 'zod';
import type { Endpoint } from '../../contract/endpoints.js';
import { SandboxHttpError } from '../http/errors.js';
import { validate } from '../http/validate.js';

const querySchemas = new WeakMap<Endpoint, z.ZodType>();

function querySchema(e: Endpoint): z.ZodType {
  let s = querySchemas.get(e);
  if (!s) {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, schema] of Object.entries(e.query ?? {})) shape[name] = schema.optional();
    s = z.object(shape);
    querySchemas.set(e, s);
  }
  return s;
}

/** Known query parameters (first value of each), validated; unknown ones are ignored. */
export function parseQuery(e: Endpoint, search: URLSearchParams): Record<string, unknown> {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(e.query ?? {})) {
    const v = search.get(name);
    if (v !== null) raw[name] = v;
  }
  return validate(querySchema(e), raw) as Record<string, unknown>;
}

/** Path parameters: a malformed order id is an unknown order (404); others are 422. */
export function checkPathParams(e: Endpoint, params: Record<string, string>): void {
  for (const [name, schema] of Object.entries(e.pathParams ?? {})) {
    if (schema.safeParse(params[name]).success) continue;
    if (name === 'order_id') throw new SandboxHttpError('NOT_FOUND', `Order ${params[name] ?? ''} does not exist`);
    validate(schema, params[name], [name]);
  }
}
