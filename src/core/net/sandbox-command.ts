/**
 * The command that starts the local sandbox a base URL points at: its port, and its host
 * when that is not the sandbox's default, so following a hint never starts it elsewhere.
 */
import { isLoopbackHost } from './loopback.js';

export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_SANDBOX_HOST = '127.0.0.1';

/** `vouchers sandbox start --port P [--host H]` for a plain-http loopback URL, else undefined. */
export function sandboxStartCommand(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' || !isLoopbackHost(parsed.hostname)) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port || '80';
  return `vouchers sandbox start --port ${port}${host === DEFAULT_SANDBOX_HOST ? '' : ` --host ${host}`}`;
}
