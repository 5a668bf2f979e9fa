import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TARGET_CHECKS, WRONG_SECRET } from '../../src/certify/checks/target.js';
import { readInbox } from '../../src/core/journal/inbox.js';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { startListener, type Listener, type ListenerActivity } from '../../src/listener/server.js';
import { emptyProfile, runChecks } from './helpers.js';

const SECRET = 'whsec_certify_target_test_secret_0123456789';
const REFUSALS = ['target.tampered', 'target.wrong-secret', 'target.stale', 'target.future'];
const ACCEPTS = ['target.valid', 'target.duplicate', 'target.unknown-type'];

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Our own listener: a receiver that verifies properly, with a known secret and an inbox in a temp dir. */
async function verifyingReceiver() {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-target-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const inboxPath = join(dir, 'events.ndjson');
  const inbox = await InboxWriter.open(inboxPath);
  const activity: ListenerActivity[] = [];
  const listener: Listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: [SECRET],
    tolerance: 300,
    inbox,
    filter: () => true,
    clock: { now: () => Date.now() },
    onActivity: (a) => activity.push(a),
  });
  cleanup.push(() => listener.close());
  return { url: listener.url, activity, inboxPath };
}

/** A receiver that answers every request with `status`, verifying nothing. */
async function answeringReceiver(status: number) {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, bodies };
}

const runTarget = (url: string) => runChecks(TARGET_CHECKS, { webhookTarget: url, profile: emptyProfile({ webhook_secret: SECRET }) });

describe("--webhook-target: the partner's own receiver", () => {
  it('passes against a receiver that verifies properly (our listener)', async () => {
    const receiver = await verifyingReceiver();
    const run = await runTarget(receiver.url);
    for (const r of run.results) expect(r.status, `${r.id}: ${r.message} ${r.actual ?? ''}`).toBe('pass');
    expect(run.result('target.valid').message).toMatch(/^order\.delivered evt_\w+ answered HTTP 200 in \d+ ms$/);
    expect(run.result('target.tampered').message).toMatch(/^refused: HTTP 401 in \d+ ms$/);
    expect(run.result('target.stale').message).toMatch(/^refused: HTTP 401/);
    // What the receiver saw: the valid event stored once (its duplicate recognised), the unknown type stored, four refusals.
    const kinds = receiver.activity.map((a) => a.kind);
    expect(kinds.filter((k) => k === 'event')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'duplicate')).toHaveLength(1);
    const refused = receiver.activity.flatMap((a) => (a.kind === 'rejected' ? [a.rejection.code] : [])).sort();
    expect(refused).toEqual(['INVALID_SIGNATURE', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'TIMESTAMP_OUT_OF_WINDOW']);
    const stored: string[] = [];
    for await (const e of readInbox(receiver.inboxPath)) stored.push(e.envelope.event);
    expect(stored.sort()).toEqual(['order.delivered', 'order.rerouted']);
    expect(JSON.stringify(run.results)).not.toContain(SECRET);
  });

  it('fails the tampered, wrong-secret, stale and future checks against a receiver that accepts everything', async () => {
    const receiver = await answeringReceiver(200);
    const run = await runTarget(receiver.url);
    for (const id of ACCEPTS) expect(run.result(id).status, id).toBe('pass');
    for (const id of REFUSALS) {
      const r = run.result(id);
      expect(r.status, id).toBe('fail');
      expect(r.message).toMatch(/^your receiver accepted .+ \(HTTP 200\): .+; it must verify X-Webhook-Signature/);
      expect(r.expected).toBe('a non-2xx answer (401)');
      expect(r.actual).toMatch(/^HTTP 200 in \d+ ms$/);
      expect(r.reproduce).toContain('vouchers webhooks sign --body - --timestamp $T');
      expect(r.reproduce).toContain(receiver.url);
    }
    expect(run.result('target.tampered').message).toContain('a delivery whose body was changed after signing');
    expect(run.result('target.tampered').reproduce).toContain('printf %s "$SIGNED"');
    expect(run.result('target.wrong-secret').reproduce).toContain(`--secret ${WRONG_SECRET}`);
    expect(run.result('target.stale').reproduce).toContain('T=$(( $(date +%s) - 600 ));');
    expect(run.result('target.future').reproduce).toContain('T=$(( $(date +%s) + 600 ));');
    // Nothing secret in any result, though every delivery was signed with it.
    expect(JSON.stringify(run.results)).not.toContain(SECRET);
    // valid, four refusals, the duplicate, the unknown type.
    expect(receiver.bodies).toHaveLength(7);
  });

  it('against a receiver that refuses everything: the valid, duplicate and unknown-type checks say so; the refusals are warned as meaningless', async () => {
    const receiver = await answeringReceiver(401);
    const run = await runTarget(receiver.url);
    const valid = run.result('target.valid');
    expect(valid.status).toBe('fail');
    expect(valid.message).toContain('your receiver answered a correctly signed delivery with HTTP 401');
    for (const id of REFUSALS) {
      const r = run.result(id);
      expect(r.status, id).toBe('warn');
      expect(r.warnings).toEqual([
        'your receiver refused the correctly signed delivery too (target.valid): this refusal proves nothing until that one is accepted',
      ]);
    }
    expect(run.result('target.duplicate')).toMatchObject({
      status: 'skip',
      message: 'your receiver refused the first, correctly signed delivery (target.valid), so a duplicate cannot be told apart',
    });
    const unknown = run.result('target.unknown-type');
    expect(unknown.status).toBe('fail');
    expect(unknown.message).toContain('acknowledge them with 2xx (and ignore them)');
  });

  it('against a receiver nothing listens for: target.valid fails once, naming the address; the others are not sent', async () => {
    // A port that was free a moment ago: the connection is refused.
    const closed = await answeringReceiver(200);
    const url = closed.url;
    await cleanup.pop()!();
    const run = await runTarget(url);
    const port = new URL(url).port;
    const valid = run.result('target.valid');
    expect(valid.status).toBe('fail');
    expect(valid.message).toBe(
      `could not reach your receiver at ${url}: connection refused: nothing listens at 127.0.0.1:${port}. Start it (or correct --webhook-target) and run certify again; the other target checks were not sent`,
    );
    for (const id of [...REFUSALS, 'target.duplicate', 'target.unknown-type']) {
      expect(run.result(id), id).toMatchObject({
        status: 'skip',
        message: 'not sent: your receiver could not be reached (see target.valid)',
      });
    }
    expect(closed.bodies).toHaveLength(0);
  });

  it('names a port fetch refuses to use (9, discard: refused before any connection)', async () => {
    const run = await runTarget('http://127.0.0.1:9/hooks');
    expect(run.result('target.valid').message).toContain('port 9 is one HTTP clients refuse to use');
    expect(run.result('target.stale').status).toBe('skip');
  });

  it('is skipped with the reason without --webhook-target', async () => {
    const run = await runChecks(TARGET_CHECKS);
    for (const r of run.results) {
      expect(r.status).toBe('skip');
      expect(r.message).toBe(
        'needs your webhook receiver (--webhook-target URL): pass --webhook-target URL to certify your own webhook receiver',
      );
    }
  });
});
