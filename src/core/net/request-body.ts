/**
 * The one request-body reader of our HTTP servers (the sandbox and the webhook listener):
 * a body up to a byte limit. Over the limit (by Content-Length, or counted while
 * streaming) it stops reading at once: the caller answers 413 and drops the socket. A
 * client that goes away mid-body ends the read as `aborted`, never leaves it pending.
 */
import type { IncomingMessage } from 'node:http';

/** 1 MiB, the document's body limit. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyResult =
  { ok: true; body: Buffer } | { ok: false; reason: 'too_large'; declared: number | undefined } | { ok: false; reason: 'aborted' };

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (declared !== undefined && Number.isFinite(declared) && declared > limit) {
    req.pause();
    return Promise.resolve({ ok: false, reason: 'too_large', declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (r: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        chunks.length = 0;
        finish({ ok: false, reason: 'too_large', declared });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onAbort = () => finish({ ok: false, reason: 'aborted' });
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
