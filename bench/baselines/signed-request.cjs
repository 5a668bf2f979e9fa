// Baseline of the one-request figures: a cold process that sends one request of the
// Partner API with node:http, signed as the API asks (HMAC-SHA256 of timestamp + METHOD +
// path + body), prints the answer's body and exits. No CLI, no validation, no journal.
//
//   node signed-request.cjs GET /products
//   node signed-request.cjs POST /orders '{"product_id":…}'   (a fresh Idempotency-Key)
const http = require('node:http');
const { createHmac, randomUUID } = require('node:crypto');

const [method, path, body = ''] = process.argv.slice(2);
const base = new URL(process.env.VOUCHERS_BASE_URL);
const target = base.pathname.replace(/\/+$/, '') + path;
const headers = {
  accept: 'application/json',
  'x-api-key': process.env.VOUCHERS_API_KEY,
  'x-api-secret': process.env.VOUCHERS_API_SECRET,
};
if (method !== 'GET') {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', process.env.VOUCHERS_API_SECRET).update(`${timestamp}${method}${target}${body}`).digest('hex');
  Object.assign(headers, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'idempotency-key': randomUUID(),
    'x-timestamp': String(timestamp),
    'x-signature': `t=${timestamp},v1=${signature}`,
  });
}
const req = http.request({ host: base.hostname, port: base.port, path: target, method, headers }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (res.statusCode >= 300) {
      process.stderr.write(`HTTP ${res.statusCode}: ${text}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(JSON.stringify(JSON.parse(text), null, 2) + '\n');
  });
});
req.on('error', (e) => {
  process.stderr.write(`${e.message}\n`);
  process.exitCode = 1;
});
req.end(body);
