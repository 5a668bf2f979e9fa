/** The methods a path answers to (for 405 Allow), among the endpoints the sandbox serves (dialect, planned ones). */
import { ENDPOINTS, type Endpoint } from '../../contract/endpoints.js';

/** Each endpoint's path as a pattern, made once. */
const PATTERNS = new Map<Endpoint, RegExp>(
  (ENDPOINTS as readonly Endpoint[]).map((e) => [e, new RegExp('^' + e.path.replace(/\{(\w+)\}/g, '([^/]+)') + '/?$')]),
);

export function allowedMethods(path: string, serves: (e: Endpoint) => boolean): string[] {
  const methods: string[] = [];
  for (const [e, re] of PATTERNS) {
    if (!serves(e)) continue;
    if (re.test(path) && !methods.includes(e.method)) methods.push(e.method);
  }
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods;
}
