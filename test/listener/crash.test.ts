/**
 * End to end with the real CLI in a child process (`node bin/vouchers.js listen`, built
 * dist/): killed with SIGKILL in the middle of a stream of deliveries and restarted while
 * the sender keeps retrying, every event that ever got a 2xx is in the inbox exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderEvent, post, SECRET, signedHeaders } from './deliveries.js';
import { freePort } from '../helpers/loopback-server.js';
import { until } from '../helpers/until.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/vouchers.js');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Child {
  proc: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startListenerProcess(port: number, inbox: string, configDir: string): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'listen', '--port', String(port), '--secret', SECRET, '--inbox', inbox, '--json'], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1', VOUCHERS_WEBHOOK_SECRET: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(proc);
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.once('exit', (code, signal) => r({ code, signal })),
  );
  await until(() => err.includes('Ready! Listening on') || proc.exitCode !== null, 'the listener to start', 10_000);
  if (!err.includes('Ready! Listening on')) throw new Error(`listener did not start: ${err}`);
  return { proc, stderr: () => err, exited };
}

describe('listen, killed and restarted (spawned CLI)', () => {
  it('keeps every acknowledged event exactly once across SIGKILLs, then stops cleanly on SIGINT', async () => {
    const port = await freePort();
    const configDir = mkdtempSync(join(tmpdir(), 'vouchers-test-'));
    const inbox = join(configDir, 'inbox', 'events.ndjson');
    const url = `http://127.0.0.1:${port}/webhooks`;
    let child = await startListenerProcess(port, inbox, configDir);

    const TOTAL = 240;
    const acked = new Set<string>();
    let next = 0;
    let attemptsFailed = 0;
    // The sender: 8 concurrent workers, each retrying its event until a 2xx (as the API does).
    const worker = async () => {
      for (;;) {
        const n = next++;
        if (n >= TOTAL) return;
        const ev = orderEvent(1000 + n);
        const body = JSON.stringify(ev);
        for (;;) {
          try {
            const res = await post(url, body, signedHeaders(body, [SECRET], undefined, ev.event_id as string));
            if (res.status >= 200 && res.status < 300) {
              acked.add(ev.event_id as string);
              break;
            }
          } catch {
            attemptsFailed++;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    };
    const sending = Promise.all(Array.from({ length: 8 }, worker));

    for (const at of [TOTAL / 3, (2 * TOTAL) / 3]) {
      await until(() => acked.size >= at, `${at} acknowledged events`, 20_000);
      child.proc.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');
      child = await startListenerProcess(port, inbox, configDir);
    }
    await sending;
    expect(acked.size).toBe(TOTAL);
    expect(attemptsFailed).toBeGreaterThan(0); // the kills did interrupt the stream

    // Re-sending acknowledged events after the restarts: duplicates, not stored again.
    for (const n of [0, TOTAL / 2, TOTAL - 1]) {
      const ev = orderEvent(1000 + n);
      const body = JSON.stringify(ev);
      const res = await post(url, body, signedHeaders(body));
      expect(res.json).toEqual({ received: true, duplicate: true });
    }

    child.proc.kill('SIGINT');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stderr()).toMatch(/Stopped\./);

    const lines = readFileSync(inbox, 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // ends on a complete line
    const ids = lines.map((l) => JSON.parse(l).envelope.event_id as string);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(new Set(ids)).toEqual(acked);
    expect(statSync(inbox).mode & 0o777).toBe(0o600);
  }, 60_000);
});
