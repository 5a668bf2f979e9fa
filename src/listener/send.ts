/**
 * One POST to the partner's local app: the forwarded (or replayed) delivery. Never throws:
 * the result names the status, or why no answer arrived.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface SendResult {
  /** HTTP status, null when no response arrived. */
  status: number | null;
  durationMs: number;
  /** `connection refused`, `timed out after 10 s`, … (null when a response arrived). */
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  now?: () => number;
}

function describe(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EPIPE':
      return 'connection closed';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return e.code ? `${e.code.toLowerCase()}` : e.message;
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export function postOnce(url: URL, body: Buffer | string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...r, durationMs: Math.max(0, Math.round(now() - started)) });
    };
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': String(payload.length) },
    });
    const timer = setTimeout(() => {
      finish({ status: null, error: `timed out after ${seconds(options.timeoutMs)}` });
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ status: null, error: 'cancelled' });
      req.destroy();
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => finish({ status: res.statusCode ?? null, error: null }));
      res.on('error', () => finish({ status: res.statusCode ?? null, error: null }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish({ status: null, error: describe(e) }));
    req.end(payload);
  });
}
