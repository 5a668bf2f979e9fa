/**
 * Words an argument takes: the HTTP method of `api` and `sign`, the event type of `sandbox
 * trigger` (checked by the command itself, in any case, with its own error, rather than
 * through commander's choices), the shell of `completion`. Completion offers them; a usage
 * error for a missing one names them.
 */
import { EVENT_TYPES } from '../contract/events.js';
import { SHELLS } from './completion/index.js';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

/** By the argument's name (`<method>`, `<event-type>`, `<shell>`). */
export const ARGUMENT_WORDS: Readonly<Record<string, readonly string[]>> = {
  method: API_METHODS,
  'event-type': EVENT_TYPES,
  shell: SHELLS,
};
