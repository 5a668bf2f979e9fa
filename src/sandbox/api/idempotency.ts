/**
 * Idempotency of writes: scope = API key + method + path + Idempotency-Key, kept 24 h by
 * the sandbox clock. A finished request is stored (status, headers, body) and replayed
 * with `Idempotent-Replayed: true`; a different body is 422; a request still running is
 * 409. The in-progress marker is taken synchronously, so of N concurrent requests with the
 * same key exactly one executes.
 */
import { hash } from 'node:crypto';
import type { Reply } from '../http/respond.js';
import type { Runtime } from '../runtime.js';
import type { IdempotencyRecord } from '../state/types.js';
import { flat } from '../core/flat.js';

export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/** The contract's key rule (1–255 printable ASCII characters). */
export { isIdempotencyKey as validIdempotencyKey } from '../../contract/idempotency.js';

export function bodyHash(raw: Buffer): string {
  return hash('sha256', raw, 'hex');
}

export type Begin = { kind: 'started' } | { kind: 'replay'; record: IdempotencyRecord } | { kind: 'reused' } | { kind: 'in_progress' };

/** Headers of a stored response that are replayed (per-request headers are not). */
const STORED_HEADERS = ['content-type', 'location'];

export class IdempotencyStore {
  private readonly running = new Map<string, string>();

  constructor(private readonly rt: () => Runtime) {}

  static scope(apiKey: string, method: string, path: string, key: string): string {
    return JSON.stringify([apiKey, method.toUpperCase(), path, key]);
  }

  begin(scope: string, hash: string): Begin {
    const rt = this.rt();
    const stored = rt.state.idempotency[scope];
    if (stored && stored.created_at + IDEMPOTENCY_RETENTION_MS <= rt.clock.now()) {
      delete rt.state.idempotency[scope];
    } else if (stored) {
      return stored.body_hash === hash ? { kind: 'replay', record: stored } : { kind: 'reused' };
    }
    if (this.running.has(scope)) return { kind: 'in_progress' };
    this.running.set(scope, hash);
    return { kind: 'started' };
  }

  /** Store the outcome of an executed request (unless it is not storable) and release the marker. */
  finish(scope: string, hash: string, reply: Reply, storable: boolean): void {
    this.running.delete(scope);
    if (!storable) return;
    const rt = this.rt();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(reply.headers)) if (STORED_HEADERS.includes(k.toLowerCase())) headers[k] = flat(v);
    rt.state.idempotency[scope] = {
      scope,
      body_hash: hash,
      status: reply.status,
      headers,
      body: flat(reply.body ?? ''),
      created_at: rt.clock.now(),
    };
    rt.changed();
  }

  release(scope: string): void {
    this.running.delete(scope);
  }

  /** Drop records older than the retention. */
  sweep(): void {
    const rt = this.rt();
    const cutoff = rt.clock.now() - IDEMPOTENCY_RETENTION_MS;
    for (const [k, r] of Object.entries(rt.state.idempotency)) if (r.created_at <= cutoff) delete rt.state.idempotency[k];
  }

  clear(): void {
    this.running.clear();
  }
}

export function replayOf(record: IdempotencyRecord): Reply {
  return {
    status: record.status,
    body: record.body === '' && record.status === 204 ? undefined : record.body,
    headers: { ...record.headers, 'Idempotent-Replayed': 'true' },
  };
}
