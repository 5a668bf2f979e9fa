/**
 * The least a durable acknowledgement costs: the bare server (read the body, answer a small
 * JSON body with 200) that first appends each body to a file and fsyncs it, the way the
 * listener's inbox does (the bodies read in one turn of the event loop share one write and
 * one fsync, two fsyncs at a time, each batch answered only once its fsync and every
 * earlier one succeeded). No signature, no JSON, no dedupe: what it adds to the bare server
 * is the disk's. Takes the file as the first argument; prints `{"port":…}` on stdout once it
 * listens.
 */
import { fsync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';

const fd = openSync(process.argv[2], 'a', 0o600);
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
    text += `${Buffer.concat(chunks).toString('utf8')}\n`;
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
