/**
 * `--events order.*,voucher.issued`: which event types are shown and forwarded. Patterns
 * are event types with `*` globs; a glob must match at least one known type, an exact name
 * may be a type this version does not know (a newer API's). The same patterns, expanded to
 * the known types, are what `webhooks register --events` sends (known types only).
 */
import { EVENT_TYPES, type EventType } from '../contract/events.js';
import { UsageError } from '../core/errors/index.js';

export type EventFilter = (eventType: string) => boolean;

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

/**
 * A comma-separated list of event-type globs → one RegExp each; a usage error names what is
 * wrong. A glob must match a type this version knows; an exact name need not when
 * `unknownNames` (a filter: the API may send types newer than this version, and they are
 * stored and can be listed).
 */
function parsePatterns(spec: string, flag: string, unknownNames = false): RegExp[] {
  const patterns = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (patterns.length === 0)
    throw new UsageError(
      `${flag} needs at least one event type`,
      `e.g. ${flag} order.*,voucher.issued; known types: ${EVENT_TYPES.join(', ')}`,
    );
  return patterns.map((p) => {
    if (!/^[a-z0-9_.*]+$/.test(p))
      throw new UsageError(
        `${flag}: ${JSON.stringify(p)} is not an event type`,
        `known types: ${EVENT_TYPES.join(', ')}; * matches any part, e.g. order.*`,
      );
    const re = globToRegExp(p);
    if (!EVENT_TYPES.some((t) => re.test(t)) && !(unknownNames && !p.includes('*')))
      throw new UsageError(`${flag}: ${JSON.stringify(p)} matches no event type`, `known types: ${EVENT_TYPES.join(', ')}`);
    return re;
  });
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
