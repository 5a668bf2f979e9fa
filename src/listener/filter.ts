/**
 * `--events order.*,voucher.issued`: which event types are shown and forwarded. Patterns
 * are event types with `*` globs; each must match at least one known type.
 */
import { EVENT_TYPES } from '../contract/events.js';
import { UsageError } from '../core/errors/index.js';

export type EventFilter = (eventType: string) => boolean;

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${escaped}$`);
}

/** Parse a comma-separated list of event-type globs; undefined or empty matches everything. */
export function parseEventFilter(spec: string | undefined, flag = '--events'): EventFilter {
  if (spec === undefined) return () => true;
  const patterns = spec.split(',').map((s) => s.trim()).filter(Boolean);
  if (patterns.length === 0) throw new UsageError(`${flag} needs at least one event type`, `e.g. ${flag} order.*,voucher.issued; known types: ${EVENT_TYPES.join(', ')}`);
  const regexps = patterns.map((p) => {
    if (!/^[a-z_.*]+$/.test(p)) throw new UsageError(`${flag}: ${JSON.stringify(p)} is not an event type`, `known types: ${EVENT_TYPES.join(', ')}; * matches any part, e.g. order.*`);
    const re = globToRegExp(p);
    if (!EVENT_TYPES.some((t) => re.test(t))) throw new UsageError(`${flag}: ${JSON.stringify(p)} matches no event type`, `known types: ${EVENT_TYPES.join(', ')}`);
    return re;
  });
  return (eventType) => regexps.some((re) => re.test(eventType));
}
