/**
 * The admin surface at /admin: JSON over HTTP, `Authorization: Bearer <adminToken>`.
 * Every route is listed in docs/sandbox.md. Errors use the API's error envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodePathParam } from '../../contract/routes.js';
import { docPath } from '../../core/io/package-root.js';
import { safeEqual } from '../api/auth.js';
import { isJsonContentType, parseJson, readBody } from '../http/body.js';
import { SandboxHttpError } from '../http/errors.js';
import { replyForError, send } from '../http/respond.js';
import { validate } from '../http/validate.js';
import { ACCOUNT_ROUTES } from './accounts.js';
import type { AdminRoute, AdminServices } from './context.js';
import { DELIVERY_ROUTES } from './deliveries.js';
import { DRIFT_ROUTES } from './drifts.js';
import { INVENTORY_ROUTES } from './inventory.js';
import { ORDER_ROUTES } from './orders.js';
import { SYSTEM_ROUTES } from './system.js';

export type { AdminServices } from './context.js';

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...SYSTEM_ROUTES,
  ...ORDER_ROUTES,
  ...ACCOUNT_ROUTES,
  ...INVENTORY_ROUTES,
  ...DELIVERY_ROUTES,
  ...DRIFT_ROUTES,
];

const compiled = ADMIN_ROUTES.map((r) => {
  const names: string[] = [];
  const re = new RegExp(
    '^' +
      r.path.replace(/\{(\w+)\}/g, (_, n: string) => {
        names.push(n);
        return '([^/]+)';
      }) +
      '/?$',
  );
  return { route: r, re, names };
});

function authorised(svc: AdminServices, req: IncomingMessage): boolean {
  const h = req.headers.authorization;
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1] !== undefined && safeEqual(m[1], svc.rt().state.admin_token);
}

export async function handleAdminRequest(
  svc: AdminServices,
  req: IncomingMessage,
  res: ServerResponse,
  relPath: string,
  search: URLSearchParams,
): Promise<{ status: number }> {
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    if (!authorised(svc, req)) {
      throw new SandboxHttpError(
        'AUTHENTICATION_FAILED',
        'Admin authentication failed: send Authorization: Bearer <admin token>; the token is saved as admin_token in the "local" profile that vouchers sandbox start writes (adminToken of startSandbox())',
      );
    }
    let found: { route: AdminRoute; params: Record<string, string> } | undefined;
    const allow: string[] = [];
    for (const c of compiled) {
      const m = c.re.exec(relPath);
      if (!m) continue;
      allow.push(c.route.method);
      if (c.route.method !== method) continue;
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        params[n] = decodePathParam(m[i + 1] ?? '');
      });
      found = { route: c.route, params };
      break;
    }
    if (!found && allow.length)
      throw new SandboxHttpError(
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed on /admin${relPath}; use ${allow.join(' or ')}`,
        undefined,
        { Allow: allow.join(', ') },
      );
    if (!found)
      throw new SandboxHttpError(
        'NOT_FOUND',
        `No admin route at ${method} /admin${relPath}; the routes are listed in ${docPath('sandbox.md')}`,
      );

    let body: unknown;
    if (method !== 'GET') {
      const declared = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
      if (declared && !isJsonContentType(req.headers['content-type'])) {
        throw new SandboxHttpError('UNSUPPORTED_MEDIA_TYPE', 'Admin requests take JSON; send Content-Type: application/json', undefined, {
          Connection: 'close',
        });
      }
      const raw = await readBody(req);
      const parsed = raw.length === 0 ? {} : parseJson(raw);
      body = found.route.body ? validate(found.route.body, parsed) : parsed;
    }
    const rt = svc.rt();
    const reply = found.route.handler({ svc, rt, params: found.params, query: search, body });
    send(res, reply);
    return { status: reply.status };
  } catch (e) {
    const reply = replyForError(e);
    send(res, reply);
    return { status: reply.status };
  }
}
