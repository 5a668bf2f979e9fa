/**
 * The baseline of the server figures: a bare node:http server doing the minimum (read the
 * body, answer a small JSON body with the status given as the first argument). Prints
 * `{"port":…}` on stdout once it listens.
 */
import { createServer } from 'node:http';

const status = Number(process.argv[2] ?? 200);
const body = status === 201 ? '{"order_id":"ord_1","status":"DELIVERED"}' : '{"received":true}';
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
process.on('SIGTERM', () => process.exit(0));
