/**
 * Words an argument takes that the command checks itself (in any case, with its own error)
 * rather than through commander's choices: the HTTP method of `api` and `sign`, the event
 * type of `sandbox trigger`. Completion offers them; a usage error for a missing one names them.
 */
import { EVENT_TYPES } from '../contract/events.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/** By the argument's name (`<method>`, `<event-type>`). */
export const ARGUMENT_WORDS: Readonly<Record<string, readonly string[]>> = { method: API_METHODS, 'event-type': EVENT_TYPES };
