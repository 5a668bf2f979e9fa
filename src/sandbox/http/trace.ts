/** X-Trace-ID: the trace-id of an incoming W3C `traceparent`, else a fresh one (32 lowercase hex). */
import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

export function traceIdFrom(traceparent: string | string[] | undefined): string {
  const value = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  const m = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  const id = m?.[1];
  if (id && !/^0+$/.test(id)) return id;
  return randomBytes(16).toString('hex');
}
