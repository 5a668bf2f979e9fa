/** The methods a path answers to (for 405 Allow), among the endpoints the sandbox serves (dialect, planned ones). */
import { ENDPOINTS, type Endpoint } from '../../contract/endpoints.js';

export function allowedMethods(path: string, serves: (e: Endpoint) => boolean): string[] {
  const methods: string[] = [];
  for (const e of ENDPOINTS as readonly Endpoint[]) {
    if (!serves(e)) continue;
    const re = new RegExp('^' + e.path.replace(/\{(\w+)\}/g, '([^/]+)') + '/?$');
    if (re.test(path) && !methods.includes(e.method)) methods.push(e.method);
  }
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods;
}
