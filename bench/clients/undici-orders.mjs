/**
 * The baseline of the bulk figure: a plain undici loop, run as its own process like the
 * CLI. It reads the same file's rows, signs each POST /orders with the project's signer,
 * sends it with an Idempotency-Key, N at a time, and exits 1 unless every order was
 * created. No journal, no pacing, no validation, no log: the floor a bulk run can reach.
 *
 *   node bench/clients/undici-orders.mjs FILE CONCURRENCY   (VOUCHERS_BASE_URL, _API_KEY, _API_SECRET)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { signRequest } from '../../dist/core/signer/request.js';

const [file, n] = process.argv.slice(2);
const { VOUCHERS_BASE_URL: baseUrl, VOUCHERS_API_KEY: apiKey, VOUCHERS_API_SECRET: apiSecret } = process.env;
const url = new URL(`${baseUrl.replace(/\/+$/, '')}/orders`);
const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
const rows = lines.map((l) => {
  const [product_id, denomination, quantity, reference, currency] = l.split(',');
  return { items: [{ product_id, denomination: Number(denomination), quantity: Number(quantity) }], currency, reference };
});
const dispatcher = new Agent({ connections: Number(n) });
let next = 0;
let failed = 0;
async function worker() {
  while (next < rows.length) {
    const body = JSON.stringify(rows[next++]);
    const sig = signRequest({ secret: apiSecret, method: 'POST', path: url.pathname, body, timestamp: Math.floor(Date.now() / 1000) });
    const res = await request(url, {
      method: 'POST',
      dispatcher,
      body,
      headers: {
        accept: 'application/json',
        'content-type': 'application/json; charset=utf-8',
        'x-api-key': apiKey,
        'x-api-secret': apiSecret,
        'idempotency-key': randomUUID(),
        'x-timestamp': sig.headers['X-Timestamp'],
        'x-signature': sig.headers['X-Signature'],
      },
    });
    const data = await res.body.json();
    if (res.statusCode !== 201 && res.statusCode !== 202) {
      failed++;
      process.stderr.write(`${res.statusCode} ${JSON.stringify(data)}\n`);
    }
  }
}
await Promise.all(Array.from({ length: Number(n) }, worker));
await dispatcher.close();
process.exitCode = failed ? 1 : 0;
