/**
 * The least a durable acknowledgement costs: the bare server (read the body, answer a small
 * JSON body with 200) that first appends each body to a file and fsyncs it, the way the
 * listener's inbox does (the bodies read in one turn of the event loop share one write and
 * one fsync, two fsyncs at a time, each batch answered only once its fsync and every
 * earlier one succeeded). No signature, no JSON, no dedupe: what it adds to the bare server
 * is the disk's. Takes the file as the first argument; prints `{"port":…}` on stdout once it
 * listens.
 *
 * With `receiver` as the second argument it is also the least any webhook receiver must do
 * before it answers, in the plainest code: the HMAC of `<t>.<body>` under
 * VOUCHERS_WEBHOOK_SECRET compared with the header's v1 (node:crypto's createHmac and
 * timingSafeEqual), the timestamp window, JSON.parse and a duplicate check on `event_id`; the
 * body is stored as it came. What it leaves out, and the listener does, is the envelope and
 * contract check, the delivery metadata, the raw-body comparison and the display.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fsync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';

const fd = openSync(process.argv[2], 'a', 0o600);
const receiver = process.argv[3] === 'receiver';
const secret = process.env.VOUCHERS_WEBHOOK_SECRET ?? '';
if (receiver && !secret) throw new Error('receiver: set VOUCHERS_WEBHOOK_SECRET');
const seen = new Set();
const body = '{"received":true}';
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
const MAX_SYNCS = 2;

let waiting = [];
let text = '';
let syncing = 0;
let scheduled = false;
let settled = Promise.resolve();

function answer(res) {
  res.writeHead(200, headers);
  res.end(body);
}

/** The receiver's checks: undefined when the delivery is to be stored, else the status to answer. */
function refusal(req, bytes, text) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(req.headers['x-webhook-signature'] ?? '');
  if (!m || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return 401;
  const mac = createHmac('sha256', secret).update(`${m[1]}.`).update(bytes).digest();
  if (!timingSafeEqual(mac, Buffer.from(m[2], 'hex'))) return 401;
  let id;
  try {
    id = JSON.parse(text).event_id;
  } catch {
    return 400;
  }
  if (typeof id !== 'string') return 400;
  if (seen.has(id)) return 200;
  seen.add(id);
  return undefined;
}

function startBatches() {
  while (waiting.length > 0 && syncing < MAX_SYNCS) {
    const batch = waiting;
    const bytes = Buffer.from(text, 'utf8');
    waiting = [];
    text = '';
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
    syncing++;
    const synced = new Promise((resolve, reject) => fsync(fd, (e) => (e ? reject(e) : resolve())));
    const previous = settled;
    settled = (async () => {
      await synced.finally(() => {
        syncing--;
        startBatches();
      });
      await previous;
      for (const res of batch) answer(res);
    })();
    // A failed fsync ends the figure: nothing measured after it would mean anything.
    settled.catch((e) => {
      process.stderr.write(`fsync failed: ${e.message}\n`);
      process.exit(1);
    });
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const bytes = Buffer.concat(chunks);
    const received = bytes.toString('utf8');
    const status = receiver ? refusal(req, bytes, received) : undefined;
    if (status !== undefined) {
      res.writeHead(status, { 'content-type': headers['content-type'] });
      res.end(status === 200 ? '{"received":true,"duplicate":true}' : '{}');
      return;
    }
    text += `${received}\n`;
    waiting.push(res);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      startBatches();
    });
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
process.on('SIGTERM', () => process.exit(0));
