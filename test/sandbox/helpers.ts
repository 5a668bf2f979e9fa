/**
 * Test helpers for the sandbox: start it on a loopback port with a short time scale, send
 * API requests signed with an independent HMAC (node:crypto, not our signer), call the
 * admin surface, and wait for conditions without long sleeps.
 */
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { until } from '../helpers/until.js';

export async function sandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, ...options });
}

export interface Creds {
  apiKey: string;
  apiSecret: string;
}

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
  /** Unix seconds to sign with (default: now). */
  timestamp?: number;
  /** Sign the path without /api/v1. */
  relative?: boolean;
  /** Do not sign at all. */
  unsigned?: boolean;
  creds?: Creds;
  signal?: AbortSignal;
}

/** Independent signature: hex HMAC-SHA256(secret, timestamp + METHOD + path + body). */
export function independentSignature(secret: string, timestamp: number, method: string, path: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}${method}${path}${body}`).digest('hex');
}

export async function api<T = any>(sb: SandboxHandle, method: string, path: string, options: CallOptions = {}): Promise<ApiResult<T>> {
  const creds = options.creds ?? sb;
  const url = new URL(sb.baseUrl + path);
  const raw = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  const headers: Record<string, string> = { 'X-API-Key': creds.apiKey, 'X-API-Secret': creds.apiSecret };
  if (raw !== '') headers['Content-Type'] = 'application/json; charset=utf-8';
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
  if (method !== 'GET' && !options.unsigned) {
    const ts = options.timestamp ?? Math.floor(Date.now() / 1000);
    const target = url.pathname + url.search;
    const signedPath = options.relative ? target.replace(/^\/api\/v1/, '') : target;
    const sig = independentSignature(creds.apiSecret, ts, method, signedPath, raw);
    headers['X-Timestamp'] = String(ts);
    headers['X-Signature'] = `t=${ts},v1=${sig}`;
  }
  Object.assign(headers, options.headers);
  const res = await fetch(url, { method, headers, body: raw === '' ? undefined : raw, signal: options.signal });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function admin<T = any>(sb: SandboxHandle, method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${sb.adminToken}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(sb.adminUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

let counter = 0;
export function key(): string {
  counter += 1;
  return `test-key-${Date.now()}-${counter}`;
}

export function order(
  sb: SandboxHandle,
  items: { product_id: string; denomination: number; quantity: number }[],
  extra: Record<string, unknown> = {},
  options: CallOptions = {},
) {
  return api(sb, 'POST', '/orders', { body: { items, ...extra }, idempotencyKey: key(), ...options });
}

export async function waitStatus(sb: SandboxHandle, orderId: string, statuses: string[], ms = 5000): Promise<any> {
  return until(
    async () => {
      const r = await api(sb, 'GET', `/orders/${orderId}`);
      return statuses.includes(r.body?.status) ? r.body : undefined;
    },
    `order ${orderId} to reach ${statuses.join('/')}`,
    ms,
  );
}

/** Sum of a partner's transactions per currency equals the wallet balances. */
export function ledgerConsistent(sb: SandboxHandle, partnerId = sb.partnerId): boolean {
  const s = sb.state;
  const partner = s.partners[partnerId];
  if (!partner) return false;
  for (const [currency, w] of Object.entries(partner.wallets)) {
    const sum = s.transactions.filter((t) => t.partner_id === partnerId && t.currency === currency).reduce((n, t) => n + t.amount_minor, 0);
    if (sum !== w.available_minor || w.available_minor < 0) return false;
  }
  return true;
}

export function balance(sb: SandboxHandle, currency = 'USD', partnerId = sb.partnerId): number {
  return sb.state.partners[partnerId]?.wallets[currency]?.available_minor ?? 0;
}

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status to answer with for the n-th delivery (0-based); default 200. */
  statusFor: (n: number) => number;
  close(): Promise<void>;
}

/** A loopback webhook receiver that records raw bodies and headers. */
export async function receiver(statusFor: (n: number) => number = () => 200): Promise<Receiver> {
  const { createServer } = await import('node:http');
  const received: Received[] = [];
  const r: Receiver = { url: '', received, statusFor, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const n = received.length;
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(r.statusFor(n)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  r.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  r.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/**
 * Write raw bytes to the sandbox's port, half-close, and read until it closes the
 * connection: everything it answered, or undefined when it has not closed within `ms`.
 */
export function rawExchange(sb: SandboxHandle, raw: string, ms = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(sb.port, sb.host, () => socket.end(raw, 'latin1'));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, ms);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', () => {});
  });
}
