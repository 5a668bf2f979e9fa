/** What an endpoint handler receives, and what it returns. */
import type { Reply } from '../http/respond.js';
import type { Runtime } from '../runtime.js';
import type { ApiKeyRecord, PartnerRecord } from '../state/types.js';

export interface HandlerContext {
  rt: Runtime;
  partner: PartnerRecord;
  key: ApiKeyRecord;
  params: Record<string, string>;
  /** Validated query parameters (only those the endpoint knows). */
  query: Record<string, unknown>;
  /** Validated request body (undefined when the endpoint takes none). */
  body: unknown;
  traceId: string;
  remoteAddress: string | null;
}

export type Handler = (ctx: HandlerContext) => Reply;
