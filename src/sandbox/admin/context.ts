/** What an admin handler receives. */
import type { z } from 'zod';
import type { Reply } from '../http/respond.js';
import type { Runtime } from '../runtime.js';
import type { SandboxCredentials } from '../app.js';

export interface AdminServices {
  rt(): Runtime;
  credentials(): SandboxCredentials;
  /** Move the sandbox clock forward, running fulfilment steps and deliveries that fall due. */
  advance(ms: number): void;
  /** Back to the seed, keeping the default credentials and the admin token. */
  reset(): void;
}

export interface AdminContext {
  svc: AdminServices;
  rt: Runtime;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** Relative to /admin, with `{param}` placeholders. */
  path: string;
  /** Body schema of POST/PUT routes (an empty body is read as `{}`). */
  body?: z.ZodType;
  handler(ctx: AdminContext): Reply;
}
