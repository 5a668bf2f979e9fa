/**
 * Quick shapes: the contract's response schemas as plain data, checked without zod.
 *
 * A one-shot command spends more time loading zod and building the contract's schemas
 * (about 15 ms) than checking the one answer it gets, and almost every answer conforms. A
 * quick shape answers one question only, "does this body certainly conform?", from data
 * generated out of the zod schemas (shapes.ts, `npm run shapes`). Yes: the body
 * is passed on as it is, exactly what zod would have returned. Anything else (a difference,
 * or a rule a quick shape does not know, such as a URL format) goes to zod, which
 * describes the difference as before. So a quick shape may only ever say yes where zod
 * says yes with the same data; test/contract/quick-shape.test.ts checks that on real and
 * random bodies.
 *
 * No zod at run time: `quickShapeOf` reads a schema's definition through its types only,
 * when the shapes are generated.
 */

import { patternCheck } from './pattern-checks.js';

/** A regular expression as data: its source and flags. */
export type Pattern = readonly [source: string, flags: string];

export type QuickShape =
  /** Any value (z.unknown, z.any). */
  | { readonly k: 'any' }
  /** A rule quick shapes do not know: only zod can say. */
  | { readonly k: 'zod' }
  | { readonly k: 'str'; readonly re?: readonly Pattern[]; readonly pre?: string; readonly min?: number; readonly max?: number }
  | {
      readonly k: 'num';
      readonly int?: true;
      /** [bound, inclusive] */
      readonly gt?: readonly (readonly [number, boolean])[];
      readonly lt?: readonly (readonly [number, boolean])[];
    }
  | { readonly k: 'bool' }
  | { readonly k: 'null' }
  /** One of these values (z.enum, z.literal). */
  | { readonly k: 'enum'; readonly v: readonly (string | number | boolean | null)[] }
  | { readonly k: 'arr'; readonly e: QuickShape; readonly min?: number; readonly max?: number }
  /** `loose`: other keys kept; `strict`: other keys refused; `strip`: other keys dropped (so a body with them is not passed on as it is). */
  | { readonly k: 'obj'; readonly p: Readonly<Record<string, QuickShape>>; readonly mode: 'loose' | 'strict' | 'strip' }
  /** An object whose every key is a string and every value `v` (z.record(z.string(), v)). */
  | { readonly k: 'rec'; readonly v: QuickShape }
  | { readonly k: 'opt'; readonly i: QuickShape }
  | { readonly k: 'nul'; readonly i: QuickShape }
  | { readonly k: 'or'; readonly o: readonly QuickShape[] };

// ---------------------------------------------------------------------------------------------
// From a zod schema (when the shapes are generated)

/** The parts of a zod 4 definition read here. */
interface ZodDefLike {
  type: string;
  check?: string;
  format?: string;
  pattern?: RegExp;
  checks?: readonly { _zod: { def: ZodCheckDefLike } }[];
  shape?: Record<string, { _zod: { def: ZodDefLike } }>;
  catchall?: { _zod: { def: ZodDefLike } };
  element?: { _zod: { def: ZodDefLike } };
  innerType?: { _zod: { def: ZodDefLike } };
  options?: readonly { _zod: { def: ZodDefLike } }[];
  entries?: Record<string, string | number>;
  keyType?: { _zod: { def: ZodDefLike } };
  valueType?: { _zod: { def: ZodDefLike } };
  mode?: string;
  values?: readonly unknown[];
}

interface ZodCheckDefLike {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: unknown;
  inclusive?: boolean;
  prefix?: string;
}

interface Bounds {
  re: Pattern[];
  pre?: string;
  min?: number;
  max?: number;
  int?: true;
  gt: (readonly [number, boolean])[];
  lt: (readonly [number, boolean])[];
}

/** String formats that are exactly their pattern (others, such as url or email, run code of their own). */
const PATTERN_FORMATS = new Set(['regex', 'datetime', 'date', 'time']);

/** Fold one check into `b`; false when quick shapes do not know it. */
function foldCheck(c: ZodCheckDefLike, type: string, b: Bounds): boolean {
  switch (c.check) {
    case 'string_format':
      if (type === 'string' && c.format === 'starts_with' && typeof c.prefix === 'string' && b.pre === undefined) {
        b.pre = c.prefix; // zod tests startsWith, not its pattern
        return true;
      }
      if (type !== 'string' || !c.format || !PATTERN_FORMATS.has(c.format) || !(c.pattern instanceof RegExp)) return false;
      if (c.pattern.global || c.pattern.sticky) return false;
      b.re.push([c.pattern.source, c.pattern.flags]);
      return true;
    case 'min_length':
      if (typeof c.minimum !== 'number') return false;
      b.min = Math.max(b.min ?? 0, c.minimum);
      return true;
    case 'max_length':
      if (typeof c.maximum !== 'number') return false;
      b.max = Math.min(b.max ?? Infinity, c.maximum);
      return true;
    case 'length_equals':
      if (typeof c.length !== 'number') return false;
      b.min = Math.max(b.min ?? 0, c.length);
      b.max = Math.min(b.max ?? Infinity, c.length);
      return true;
    case 'number_format':
      if (type !== 'number' || c.format !== 'safeint') return false;
      b.int = true;
      return true;
    case 'greater_than':
    case 'less_than':
      if (type !== 'number' || typeof c.value !== 'number') return false;
      (c.check === 'greater_than' ? b.gt : b.lt).push([c.value, c.inclusive === true]);
      return true;
    default:
      return false;
  }
}

function fromDef(def: ZodDefLike): QuickShape {
  const b: Bounds = { re: [], gt: [], lt: [] };
  // A format schema (z.iso.datetime()) is itself a check; others carry theirs in `checks`.
  if (def.check && !foldCheck(def as ZodCheckDefLike, def.type, b)) return { k: 'zod' };
  for (const c of def.checks ?? []) if (!foldCheck(c._zod.def, def.type, b)) return { k: 'zod' };
  const sized = (b.min !== undefined ? { min: b.min } : {}) as { min?: number; max?: number };
  if (b.max !== undefined) sized.max = b.max;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return def.checks?.length ? { k: 'zod' } : { k: 'any' };
    case 'string':
      return { k: 'str', ...(b.re.length ? { re: b.re } : {}), ...(b.pre !== undefined ? { pre: b.pre } : {}), ...sized };
    case 'number':
      return {
        k: 'num',
        ...(b.int ? { int: true as const } : {}),
        ...(b.gt.length ? { gt: b.gt } : {}),
        ...(b.lt.length ? { lt: b.lt } : {}),
      };
    case 'boolean':
      return { k: 'bool' };
    case 'null':
      return { k: 'null' };
    case 'enum':
      return def.entries ? { k: 'enum', v: Object.values(def.entries) } : { k: 'zod' };
    case 'literal': {
      const ok = def.values?.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
      return ok ? { k: 'enum', v: def.values as (string | number | boolean | null)[] } : { k: 'zod' };
    }
    case 'array':
      return def.element ? { k: 'arr', e: fromDef(def.element._zod.def), ...sized } : { k: 'zod' };
    case 'object': {
      if (!def.shape) return { k: 'zod' };
      const rest = def.catchall?._zod.def.type;
      const mode = rest === undefined ? 'strip' : rest === 'unknown' || rest === 'any' ? 'loose' : rest === 'never' ? 'strict' : undefined;
      if (!mode) return { k: 'zod' };
      const p: Record<string, QuickShape> = {};
      for (const [key, s] of Object.entries(def.shape)) p[key] = fromDef(s._zod.def);
      return { k: 'obj', p, mode };
    }
    case 'record': {
      // Only string keys of any value: a key type with values of its own (an enum) makes zod ask for every key.
      const key = def.keyType?._zod.def;
      if (!key || key.type !== 'string' || key.check || key.checks?.length || !def.valueType || (def.mode && def.mode !== 'strict'))
        return { k: 'zod' };
      return { k: 'rec', v: fromDef(def.valueType._zod.def) };
    }
    case 'optional':
      return def.innerType ? { k: 'opt', i: fromDef(def.innerType._zod.def) } : { k: 'zod' };
    case 'nullable':
      return def.innerType ? { k: 'nul', i: fromDef(def.innerType._zod.def) } : { k: 'zod' };
    case 'union':
      return def.options ? { k: 'or', o: def.options.map((o) => fromDef(o._zod.def)) } : { k: 'zod' };
    default:
      // default, catch, pipe, transform, lazy, record, custom…: only zod knows.
      return { k: 'zod' };
  }
}

/** The quick shape of a zod 4 schema (read through its definition; zod is not imported). */
export function quickShapeOf(schema: unknown): QuickShape {
  const def = (schema as { _zod?: { def?: ZodDefLike } } | null)?._zod?.def;
  return def ? fromDef(def) : { k: 'zod' };
}

// ---------------------------------------------------------------------------------------------
// Checking a body

/**
 * Each pattern's test, made on first use and kept with the pattern (data, not a string key
 * to hash): an exact stand-in for the common ones (pattern-checks.ts), else its RegExp.
 */
const compiled = new WeakMap<Pattern, (s: string) => boolean>();

function matches(p: Pattern, s: string): boolean {
  let test = compiled.get(p);
  if (!test) {
    test = patternCheck(p[0], p[1]);
    if (!test) {
      const re = new RegExp(p[0], p[1]);
      test = (text) => re.test(text);
    }
    compiled.set(p, test);
  }
  return test(s);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOwn = Object.prototype.hasOwnProperty;

/** `value` is within every bound: [bound, inclusive] from below (`low`) or from above. */
function within(bounds: readonly (readonly [number, boolean])[], value: number, low: boolean): boolean {
  for (let i = 0; i < bounds.length; i++) {
    const bound = bounds[i]!;
    const b = bound[0];
    const inc = bound[1];
    if (low ? (inc ? value < b : value <= b) : inc ? value > b : value >= b) return false;
  }
  return true;
}

/**
 * True only when zod would accept `value` and return it unchanged; false when it may not.
 * Written with index loops and nothing made per call (no closure, iterator or key list):
 * a bulk run checks thousands of answers, and each check's garbage costs more than the check.
 */
export function conforms(shape: QuickShape, value: unknown): boolean {
  switch (shape.k) {
    case 'any':
      return true;
    case 'zod':
      return false;
    case 'str':
      if (typeof value !== 'string') return false;
      if (shape.min !== undefined && value.length < shape.min) return false;
      if (shape.max !== undefined && value.length > shape.max) return false;
      if (shape.pre !== undefined && !value.startsWith(shape.pre)) return false;
      if (shape.re) for (let i = 0; i < shape.re.length; i++) if (!matches(shape.re[i]!, value)) return false;
      return true;
    case 'num':
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (shape.int && !Number.isSafeInteger(value)) return false;
      if (shape.gt && !within(shape.gt, value, true)) return false;
      return !shape.lt || within(shape.lt, value, false);
    case 'bool':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'enum':
      return shape.v.includes(value as string | number | boolean | null);
    case 'arr':
      if (!Array.isArray(value)) return false;
      if (shape.min !== undefined && value.length < shape.min) return false;
      if (shape.max !== undefined && value.length > shape.max) return false;
      for (let i = 0; i < value.length; i++) if (!conforms(shape.e, value[i])) return false;
      return true;
    case 'obj': {
      // A "__proto__" key is one zod leaves out of what it returns.
      if (!isRecord(value) || hasOwn.call(value, '__proto__')) return false;
      for (const key in shape.p) {
        const s = shape.p[key]!;
        if (!hasOwn.call(value, key)) {
          if (s.k !== 'opt') return false;
          continue;
        }
        if (!conforms(s, value[key])) return false;
      }
      if (shape.mode !== 'loose') for (const key in value) if (hasOwn.call(value, key) && !hasOwn.call(shape.p, key)) return false;
      return true;
    }
    case 'rec': {
      const proto = isRecord(value) ? Object.getPrototypeOf(value) : undefined;
      if ((proto !== Object.prototype && proto !== null) || hasOwn.call(value, '__proto__')) return false;
      for (const key of Object.keys(value as object)) if (!conforms(shape.v, (value as Record<string, unknown>)[key])) return false;
      return Object.getOwnPropertySymbols(value as object).length === 0;
    }
    case 'opt':
      return value === undefined || conforms(shape.i, value);
    case 'nul':
      return value === null || conforms(shape.i, value);
    case 'or':
      for (let i = 0; i < shape.o.length; i++) if (conforms(shape.o[i]!, value)) return true;
      return false;
  }
}

/** The quick shapes of every success response of an endpoint table (what shapes.ts holds). */
export function responseShapesOf(
  endpoints: readonly { id: string; responses: Readonly<Record<number, unknown>> }[],
): Record<string, Record<number, QuickShape | null>> {
  const out: Record<string, Record<number, QuickShape | null>> = {};
  for (const e of endpoints) {
    const byStatus: Record<number, QuickShape | null> = {};
    for (const [status, schema] of Object.entries(e.responses)) byStatus[Number(status)] = schema === null ? null : quickShapeOf(schema);
    out[e.id] = byStatus;
  }
  return out;
}

/**
 * The quick shape of a request schema whose object carries refinements (rules written as
 * code, such as "at most 100 vouchers in all"): the shape without them, and how many were
 * set aside. Its caller checks those rules itself before it trusts a "conforms"; the count
 * makes a new refinement fail the shapes' test until its caller checks it too.
 */
export function requestShapeOf(schema: unknown): { shape: QuickShape; refinements: number } {
  const def = (schema as { _zod?: { def?: ZodDefLike } } | null)?._zod?.def;
  if (!def || def.type !== 'object') return { shape: { k: 'zod' }, refinements: 0 };
  const checks = def.checks ?? [];
  const refinements = checks.filter((c) => c._zod.def.check === 'custom').length;
  const shape = fromDef({ ...def, checks: checks.filter((c) => c._zod.def.check !== 'custom') });
  return { shape, refinements };
}
