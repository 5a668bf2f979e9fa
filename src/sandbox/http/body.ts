/**
 * Reading a request body with the 1 MiB limit: a larger Content-Length is refused before
 * reading, a larger streamed body stops being read at the limit.
 */
import type { IncomingMessage } from 'node:http';
import { SandboxHttpError } from './errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(): SandboxHttpError {
  return new SandboxHttpError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB); send less per request`, undefined, { Connection: 'close' });
}

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => { if (!done) { done = true; resolve(Buffer.concat(chunks)); } });
    req.on('error', (e) => { if (!done) { done = true; reject(e); } });
  });
}

/** `application/json` with or without parameters. */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]*\+json$/.test(type));
}

/** Parse a JSON body; 400 MALFORMED_REQUEST when it is not JSON. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new SandboxHttpError('MALFORMED_REQUEST', `The request body is not valid JSON (${(e as Error).message}); send a JSON object with Content-Type: application/json`);
  }
}
