/**
 * Whether a host is this machine, as `listen --register` and certify decide whether an API
 * there can reach a listener here: localhost, ::1, 127.x.y.z.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
