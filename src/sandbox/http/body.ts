/**
 * Reading a request body with the 1 MiB limit: a larger Content-Length is refused before
 * reading, a larger streamed body stops being read at the limit.
 */
import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES, readBody as readRequestBody } from '../../core/net/request-body.js';
import { SandboxHttpError } from './errors.js';

export { MAX_BODY_BYTES };

function tooLarge(): SandboxHttpError {
  return new SandboxHttpError(
    'PAYLOAD_TOO_LARGE',
    `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB); send less per request`,
    undefined,
    { Connection: 'close' },
  );
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const r = await readRequestBody(req, limit);
  if (r.ok) return r.body;
  if (r.reason === 'too_large') throw tooLarge();
  throw new Error('the client closed the connection before the whole body arrived');
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
    throw new SandboxHttpError(
      'MALFORMED_REQUEST',
      `The request body is not valid JSON (${(e as Error).message}); send a JSON object with Content-Type: application/json`,
    );
  }
}
