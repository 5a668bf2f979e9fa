/**
 * `--events order.*,voucher.issued`: which event types are shown and forwarded. Patterns
 * are event types with `*` globs; a glob must match at least one known type, an exact name
 * may be a type this version does not know (a newer API's), whatever characters it holds
 * (`\` before a comma, a star or a backslash makes it part of the name). The same patterns,
 * expanded to the known types, are what `webhooks register --events` sends (known types only).
 */
import { EVENT_TYPES, type EventType } from '../contract/events.js';
import { UsageError } from '../core/errors/index.js';
import { didYouMean, nearestKnown, validWordsHint } from '../core/run/known-word.js';

export type EventFilter = (eventType: string) => boolean;

/** A character of a pattern, and whether a backslash made it literal. */
interface PatternChar {
  c: string;
  escaped: boolean;
}

/**
 * A comma-separated list → its patterns, each trimmed of the blanks around it. A backslash
 * makes the character after it literal, so that a list can name any type a delivery may
 * carry: one holding a comma, a star or a backslash, or starting or ending with a blank.
 */
function splitPatterns(spec: string): PatternChar[][] {
  const patterns: PatternChar[][] = [];
  let chars: PatternChar[] = [];
  const blank = (p: PatternChar) => !p.escaped && /\s/.test(p.c);
  const end = () => {
    let from = 0;
    let to = chars.length;
    while (from < to && blank(chars[from]!)) from++;
    while (to > from && blank(chars[to - 1]!)) to--;
    if (to > from) patterns.push(chars.slice(from, to));
    chars = [];
  };
  const all = Array.from(spec);
  for (let i = 0; i < all.length; i++) {
    const c = all[i]!;
    if (c === '\\' && i + 1 < all.length) chars.push({ c: all[++i]!, escaped: true });
    else if (c === ',') end();
    else chars.push({ c, escaped: false });
  }
  end();
  return patterns;
}

const isGlob = (p: readonly PatternChar[]) => p.some((x) => x.c === '*' && !x.escaped);

function patternToRegExp(p: readonly PatternChar[]): RegExp {
  const source = p.map((x) => (x.c === '*' && !x.escaped ? '.*' : x.c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`);
}

/**
 * An event type as a pattern of --events or --type that matches it and nothing else: a
 * comma, a star or a backslash in it, and a blank at either end, get a backslash before them.
 */
export function eventTypePattern(type: string): string {
  const chars = Array.from(type);
  return chars.map((c, i) => (/[\\,*]/.test(c) || (/\s/.test(c) && (i === 0 || i === chars.length - 1)) ? `\\${c}` : c)).join('');
}

/**
 * A comma-separated list of event-type globs → one RegExp each; a usage error names what is
 * wrong. A glob must match a type this version knows; an exact name need not when
 * `unknownNames` (a filter: the API may send types newer than this version, of any shape,
 * and they are stored and can be listed).
 */
function parsePatterns(spec: string, flag: string, unknownNames = false): RegExp[] {
  const patterns = splitPatterns(spec);
  if (patterns.length === 0)
    throw new UsageError(
      `${flag} needs at least one event type`,
      `e.g. ${flag} order.*,voucher.issued; known types: ${EVENT_TYPES.join(', ')}`,
    );
  return patterns.map((p) => {
    const re = patternToRegExp(p);
    if (!EVENT_TYPES.some((t) => re.test(t)) && !(unknownNames && !isGlob(p)))
      throw new UsageError(
        `${flag}: ${JSON.stringify(p.map((x) => (x.escaped ? `\\${x.c}` : x.c)).join(''))} matches no event type`,
        validWordsHint(EVENT_TYPES, nearestKnown(textOf(p), EVENT_TYPES)).replace('valid:', 'known types:'),
      );
    return re;
  });
}

const textOf = (p: readonly PatternChar[]) => p.map((x) => x.c).join('');

/**
 * The note for the exact names of a filter that are no event type this version knows
 * (kept: a newer API may send them), each with the known type it likely means; undefined
 * when every name is known.
 */
export function unknownEventTypesNote(spec: string | undefined, flag = '--events'): string | undefined {
  if (spec === undefined) return undefined;
  const unknown = splitPatterns(spec)
    .filter((p) => !isGlob(p) && !(EVENT_TYPES as readonly string[]).includes(textOf(p)))
    .map(textOf);
  if (unknown.length === 0) return undefined;
  const named = unknown.map((t) => `${JSON.stringify(t)}${didYouMean(t, EVENT_TYPES)}`).join(', ');
  return `Note: ${flag} ${named}: not ${unknown.length === 1 ? 'an event type' : 'event types'} this version knows (${EVENT_TYPES.join(', ')}); kept as given, for events a newer API may send`;
}

/** Parse a comma-separated list of event-type globs; undefined or empty matches everything. */
export function parseEventFilter(spec: string | undefined, flag = '--events'): EventFilter {
  if (spec === undefined) return () => true;
  const regexps = parsePatterns(spec, flag, true);
  return (eventType) => regexps.some((re) => re.test(eventType));
}

/**
 * The known event types a list of globs stands for, each once, in the order the patterns
 * name them (`order.delivered,order.*` → order.delivered first, then the other order types).
 * Undefined when `spec` is: no list given.
 */
export function expandEventPatterns(spec: string | undefined, flag = '--events'): EventType[] | undefined {
  if (spec === undefined) return undefined;
  const types = new Set<EventType>();
  for (const re of parsePatterns(spec, flag)) for (const t of EVENT_TYPES) if (re.test(t)) types.add(t);
  return [...types];
}
