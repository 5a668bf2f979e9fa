/**
 * The sandbox's throughput: signed, idempotent, cache-hit POST /orders on 16 connections,
 * against a bare node:http server answering 201; and the same after 100 k orders, against
 * the same sandbox fresh. Servers run in child processes; the load comes from undici here.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { alternate, drive, median, ratioRow, startServer } from '../load/lib.mjs';

export const name = 'sandbox';

const CONNECTIONS = 16;
const ROUND_MS = 1_500;
const WARM_UP_MS = 1_000;
const FILLED = 100_000;

export async function run(ctx) {
  const { root, runs, log = () => {} } = ctx;
  const { signRequest } = await import(join(root, 'dist/core/signer/request.js'));
  const server = join(root, 'bench/load/sandbox-server.mjs');
  const bare = join(root, 'bench/load/bare-server.mjs');
  let n = 0;

  /** POST /orders as the CLI sends it: signed, a fresh Idempotency-Key and reference each time. */
  const orders = (info) => ({
    connections: CONNECTIONS,
    next: () => {
      const body = JSON.stringify({ items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], reference: `bench-${++n}` });
      const path = '/api/v1/orders';
      const sig = signRequest({
        secret: info.apiSecret ?? 'bench-secret',
        method: 'POST',
        path,
        body,
        timestamp: Math.floor(Date.now() / 1000),
      });
      return {
        path,
        body,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'x-api-key': info.apiKey ?? 'bench-key',
          'x-api-secret': info.apiSecret ?? 'bench-secret',
          'idempotency-key': randomUUID(),
          ...sig.headers,
        },
      };
    },
    check: (status, text) => {
      if (status !== 201) throw new Error(`POST /orders answered ${status}: ${text.slice(0, 300)}`);
    },
  });
  const measure = (srv, ms = ROUND_MS) => drive(`http://127.0.0.1:${srv.info.port}`, { ...orders(srv.info), durationMs: ms });
  const rows = [];

  // 1. The sandbox against a bare server answering 201.
  {
    log(`sandbox POST /orders vs bare node:http 201, ${CONNECTIONS} connections, ${runs} rounds of ${ROUND_MS} ms`);
    const b = await startServer([bare, '201']);
    const s = await startServer([server, '0']);
    try {
      await measure(b, WARM_UP_MS);
      await measure(s, WARM_UP_MS);
      const { base, subj } = await alternate(
        runs,
        () => measure(b),
        () => measure(s),
        log,
      );
      const ratios = subj.map((r, i) => r.rps / base[i].rps);
      rows.push(
        ratioRow({
          figure: `sandbox signed idempotent POST /orders (cache hit), ${CONNECTIONS} connections`,
          baseline: 'bare node:http server answering 201',
          budget: '≥ 0.3×',
          holds: (v) => v >= 0.3,
          ratios,
          detail: `sandbox ${median(subj.map((r) => r.rps)).toFixed(0)} orders/s (p99 ${median(subj.map((r) => r.p99)).toFixed(1)} ms), bare ${median(base.map((r) => r.rps)).toFixed(0)}/s (p99 ${median(base.map((r) => r.p99)).toFixed(1)} ms)`,
        }),
      );
    } finally {
      await Promise.all([b.stop(), s.stop()]);
    }
  }

  // 2. After 100 k orders against fresh: the fresh side is a sandbox kept warm in its own
  // process and reset (POST /admin/reset, then funded) before each of its rounds, so it never
  // holds more than one round of orders.
  {
    log(`sandbox after ${FILLED} orders vs fresh, ${runs} rounds of ${ROUND_MS} ms`);
    const t0 = performance.now();
    const filled = await startServer([server, String(FILLED)]);
    const fillSeconds = (performance.now() - t0) / 1000;
    const fresh = await startServer([server, '0']);
    try {
      if (filled.info.orders < FILLED) throw new Error(`the filled sandbox holds ${filled.info.orders} orders, not ${FILLED}`);
      await measure(filled, WARM_UP_MS);
      await measure(fresh, WARM_UP_MS);
      const adminCall = async (path, body) => {
        const res = await fetch(`http://127.0.0.1:${fresh.info.port}/admin${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fresh.info.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`POST /admin${path} answered ${res.status}: ${await res.text()}`);
      };
      const freshRound = async () => {
        await adminCall('/reset', {});
        await adminCall('/wallets/fund', { currency: 'USD', amount: 100_000_000 });
        return measure(fresh);
      };
      const { base, subj } = await alternate(runs, freshRound, () => measure(filled), log);
      const ratios = subj.map((r, i) => r.rps / base[i].rps);
      rows.push(
        ratioRow({
          figure: `sandbox POST /orders throughput after ${FILLED / 1000} k orders`,
          baseline: 'the same sandbox fresh',
          budget: '≥ 0.9×',
          holds: (v) => v >= 0.9,
          ratios,
          detail: `after ${FILLED / 1000} k ${median(subj.map((r) => r.rps)).toFixed(0)} orders/s, fresh ${median(base.map((r) => r.rps)).toFixed(0)}/s; filled in ${fillSeconds.toFixed(1)} s`,
        }),
      );
    } finally {
      await Promise.all([filled.stop(), fresh.stop()]);
    }
  }
  return rows;
}
