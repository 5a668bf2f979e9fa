/** W3C Trace Context: `traceparent: 00-<trace-id>-<parent-id>-01`. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/**
 * The trace id of a traceparent header, or undefined when malformed or all zeros (W3C: no
 * trace). Hex digits in either case, as a server may send them; the id as sent.
 */
export function traceIdOf(header: string | undefined): string | undefined {
  const m = header && /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/i.exec(header.trim());
  return m && !/^0+$/.test(m[1]!) ? m[1] : undefined;
}
