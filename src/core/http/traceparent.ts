/** W3C Trace Context: `traceparent: 00-<trace-id>-<parent-id>-01`. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** The trace id of a traceparent header, or undefined when malformed. */
export function traceIdOf(header: string | undefined): string | undefined {
  const m = header && /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(header.trim());
  return m ? m[1] : undefined;
}
