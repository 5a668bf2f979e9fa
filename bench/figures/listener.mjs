/**
 * `vouchers listen` with its durable inbox (each delivery acknowledged only once its line is
 * fsynced) receiving unique, correctly signed event envelopes on 50 connections, against a
 * bare node:http server answering 200. All run in child processes; undici drives them here.
 *
 * Two more servers run in the same rounds, reported and not budgeted
 * (bench/load/bare-durable-server.mjs):
 * - the bare server appending each body to a file and fsyncing it before it answers, as the
 *   inbox does: what durability alone costs on this machine, a cost no listener that
 *   acknowledges only stored events avoids;
 * - the same with the least any receiver must add, in the plainest code: the signature and
 *   its timestamp window, JSON.parse and a duplicate check on event_id. Where the
 *   listener's p99 stands against this one shows how much of it is the listener's own.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drive, median, ratioRow, startServer } from '../load/lib.mjs';

export const name = 'listener';

const CONNECTIONS = 50;
const ROUND_MS = 1_500;
const WARM_UP_MS = 1_000;
const SECRET = `whsec_${randomBytes(24).toString('hex')}`;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function id(prefix, n) {
  let s = '';
  for (let i = 0, m = n; i < 26; i++, m = Math.floor(m / 32)) s = CROCKFORD[m % 32] + s;
  return `${prefix}_${s}`;
}

/** An order.delivered envelope as the API sends it; every one has its own event and order id. */
function envelope(n, now) {
  return {
    event: 'order.delivered',
    event_id: id('evt', n),
    created_at: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    data: {
      order_id: id('ord', n),
      status: 'DELIVERED',
      total_amount: 25,
      currency: 'USD',
      reference: `bench-${n}`,
      fulfilled_from: 'cache',
      vouchers: [{ product_id: 'sbx-instant', expiry: '2027-12-31' }],
    },
  };
}

export async function run(ctx) {
  const { root, runs, log = () => {} } = ctx;
  const { verifyWebhookSignature } = await import(join(root, 'dist/core/signer/webhook.js'));
  const { checkEnvelope } = await import(join(root, 'dist/listener/envelope.js'));
  // The load generator signs on its own (node:crypto), so that a change to the CLI's signer
  // changes the listener's side of the figure only; its header is checked once against the
  // CLI's verifier.
  const sign = (body, t) => `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
  const probe = JSON.stringify(envelope(0, Date.now()));
  const probeAt = Math.floor(Date.now() / 1000);
  verifyWebhookSignature(probe, sign(probe, probeAt), SECRET, { nowSeconds: probeAt });
  const sample = checkEnvelope(envelope(1, Date.now()));
  if (!sample.ok || !sample.known || sample.drift.length > 0)
    throw new Error(`the benchmark's envelope is not the contract's: ${JSON.stringify(sample)}`);

  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-listen-'));
  const inbox = join(dir, 'events.ndjson');
  let n = Date.now() * 1000;
  let sent = 0;
  const deliveries = {
    connections: CONNECTIONS,
    next: () => {
      const now = Date.now();
      const body = JSON.stringify(envelope(++n, now));
      const t = Math.floor(now / 1000);
      return {
        path: '/webhooks',
        body,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'vouchers-sandbox-webhooks/1',
          'x-webhook-id': id('evt', n),
          'x-webhook-timestamp': String(t),
          'x-webhook-signature': sign(body, t),
        },
      };
    },
    check: (status, text) => {
      if (status !== 200 || text.includes('duplicate')) throw new Error(`the delivery was answered ${status}: ${text.slice(0, 300)}`);
    },
  };
  const measure = (srv, ms = ROUND_MS) => drive(srv.origin, { ...deliveries, durationMs: ms });

  const env = { ...process.env, VOUCHERS_CONFIG_DIR: dir, VOUCHERS_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' };
  const bare = await startServer([join(root, 'bench/load/bare-server.mjs'), '200']);
  const durable = await startServer([join(root, 'bench/load/bare-durable-server.mjs'), join(dir, 'bodies.ndjson')]);
  const receiver = await startServer([join(root, 'bench/load/bare-durable-server.mjs'), join(dir, 'received.ndjson'), 'receiver'], { env });
  const listen = await startServer([join(root, 'bin/vouchers.js'), 'listen', '--port', '0', '--inbox', inbox], { env, ready: 'stderr' });
  bare.origin = `http://127.0.0.1:${bare.info.port}`;
  durable.origin = `http://127.0.0.1:${durable.info.port}`;
  receiver.origin = `http://127.0.0.1:${receiver.info.port}`;
  listen.origin = new URL(listen.info.url).origin;
  try {
    log(
      `vouchers listen (durable inbox), the bare server with fsync and the minimal receiver vs bare node:http 200, ${CONNECTIONS} connections, ${runs} rounds of ${ROUND_MS} ms`,
    );
    await measure(bare, WARM_UP_MS);
    await measure(durable, WARM_UP_MS);
    await measure(receiver, WARM_UP_MS);
    sent += (await measure(listen, WARM_UP_MS)).count;
    // Each round measures all four, in an order that turns round by round, so none always
    // runs first or last.
    const sides = [
      ['baseline', bare, []],
      ['subject', listen, []],
      ['bare with fsync', durable, []],
      ['minimal receiver', receiver, []],
    ];
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < sides.length; k++) {
        const [side, server, into] = sides[(i + k) % sides.length];
        const r = await measure(server);
        into.push(r);
        log(`  round ${i + 1}/${runs} ${side}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(1)} ms`);
      }
    }
    const [[, , base], [, , subj], [, , floor], [, , least]] = sides;
    for (const r of subj) sent += r.count;
    await listen.stop();
    // Every acknowledged delivery is in the inbox.
    const lines = readFileSync(inbox, 'utf8').split('\n').filter(Boolean).length;
    if (lines !== sent) throw new Error(`${sent} deliveries were acknowledged but the inbox holds ${lines} lines`);
    const throughput = ratioRow({
      figure: `listener with durable inbox, ${CONNECTIONS} connections, unique signed events`,
      baseline: 'bare node:http server answering 200',
      budget: '≥ 0.6×',
      holds: (v) => v >= 0.6,
      ratios: subj.map((r, i) => r.rps / base[i].rps),
      detail: `listener ${median(subj.map((r) => r.rps)).toFixed(0)} deliveries/s, bare ${median(base.map((r) => r.rps)).toFixed(0)}/s; ${sent} events stored and found in the inbox`,
    });
    const p99 = ratioRow({
      figure: `listener p99 latency, ${CONNECTIONS} connections`,
      baseline: 'bare node:http server answering 200',
      budget: '≤ 1.5×',
      holds: (v) => v <= 1.5,
      ratios: subj.map((r, i) => r.p99 / base[i].p99),
      detail: `listener p99 ${median(subj.map((r) => r.p99)).toFixed(1)} ms, bare ${median(base.map((r) => r.p99)).toFixed(1)} ms`,
    });
    const floorThroughput = ratioRow({
      figure: `bare server with append + fsync before each answer (durability alone), ${CONNECTIONS} connections`,
      baseline: 'bare node:http server answering 200',
      budget: '—',
      holds: () => null,
      ratios: floor.map((r, i) => r.rps / base[i].rps),
      detail: `${median(floor.map((r) => r.rps)).toFixed(0)} requests/s: what a durable acknowledgement alone leaves of the bare server's throughput`,
    });
    const floorP99 = ratioRow({
      figure: `bare server with append + fsync, p99 latency, ${CONNECTIONS} connections`,
      baseline: 'bare node:http server answering 200',
      budget: '—',
      holds: () => null,
      ratios: floor.map((r, i) => r.p99 / base[i].p99),
      detail: `p99 ${median(floor.map((r) => r.p99)).toFixed(1)} ms: what a durable acknowledgement alone costs in latency`,
    });
    const leastThroughput = ratioRow({
      figure: `minimal receiver: signature, JSON.parse, duplicate check, append + fsync before each answer, ${CONNECTIONS} connections`,
      baseline: 'bare node:http server answering 200',
      budget: '—',
      holds: () => null,
      ratios: least.map((r, i) => r.rps / base[i].rps),
      detail: `${median(least.map((r) => r.rps)).toFixed(0)} deliveries/s: the least any receiver that verifies, dedupes and stores each event before it answers must do, in the plainest code`,
    });
    const leastP99 = ratioRow({
      figure: `minimal receiver, p99 latency, ${CONNECTIONS} connections`,
      baseline: 'bare node:http server answering 200',
      budget: '—',
      holds: () => null,
      ratios: least.map((r, i) => r.p99 / base[i].p99),
      detail: `p99 ${median(least.map((r) => r.p99)).toFixed(1)} ms; the listener's p99 is ${median(subj.map((r, i) => r.p99 / least[i].p99)).toFixed(2)}× this receiver's (median of the rounds)`,
    });
    return [throughput, p99, floorThroughput, floorP99, leastThroughput, leastP99];
  } finally {
    await Promise.all([bare.stop(), durable.stop(), receiver.stop(), listen.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
