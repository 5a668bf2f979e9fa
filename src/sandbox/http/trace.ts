/** X-Trace-ID: the trace-id of an incoming W3C `traceparent`, else a fresh one (32 lowercase hex). */
import { randomFillSync } from 'node:crypto';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

export function traceIdFrom(traceparent: string | string[] | undefined): string {
  const value = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  const m = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  const id = m?.[1];
  if (id && !/^0+$/.test(id)) return id;
  return freshTraceId();
}

/** Random bytes drawn 4 KiB at a time (one call into the CSPRNG per 256 trace ids, not one per request). */
const pool = Buffer.alloc(4096);
let used = pool.length;

function freshTraceId(): string {
  if (used + 16 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const id = pool.toString('hex', used, used + 16);
  used += 16;
  return id;
}
