/**
 * zod schemas as the OpenAPI document's JSON Schemas (openapi.ts builds the document): each
 * converted with `z.toJSONSchema` (draft 2020-12), tidied for reading, and every schema with
 * a meta id lifted into components.schemas, once, whatever endpoint names it.
 */
import * as z from 'zod';

export type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** Loosen what zod emits for readability: drop the date regexes (`format` says it) and the safe-integer bounds. */
function tidy(s: Json): void {
  if ((s.format === 'date' || s.format === 'date-time') && typeof s.pattern === 'string') delete s.pattern;
  if (s.type === 'integer') {
    if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
    if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? SCHEMA_REF + v.slice('#/$defs/'.length) : rewriteRefs(v);
  }
  return out;
}

/** Converts zod schemas and lifts every schema with a meta id into components.schemas. */
export class SchemaCollector {
  readonly components = new Map<string, Json>();
  private readonly serialized = new Map<string, string>();

  convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const raw = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'throw',
      override: (ctx) => tidy(ctx.jsonSchema as Json),
    }) as Json;
    const { $schema: _dialect, $defs, ...root } = rewriteRefs(raw) as Json;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) this.add(id, def);
    return root;
  }

  private add(id: string, def: Json): void {
    const text = JSON.stringify(def);
    const before = this.serialized.get(id);
    if (before !== undefined && before !== text) {
      throw new Error(`schema id ${id} converts to two different JSON Schemas (input vs output?); give the variants distinct meta ids`);
    }
    this.serialized.set(id, text);
    this.components.set(id, def);
  }

  sorted(): Record<string, Json> {
    return Object.fromEntries([...this.components.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
