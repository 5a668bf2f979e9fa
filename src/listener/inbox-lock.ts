/**
 * One listener per inbox. Two listeners appending to the same file would each dedupe only
 * what they stored themselves (an event could be stored twice), and the second one, on
 * opening, would cut the first one's line in progress as if it were torn by a crash.
 *
 * The lock is a local socket named after the inbox path (a Unix socket in the temp folder,
 * a named pipe on Windows). The kernel frees it when its process dies, even by SIGKILL; a
 * socket file left behind refuses connections and is taken over. A second listener that
 * connects reads who holds the lock.
 */
import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface InboxLock {
  /** Say who holds the lock (shown to a second listener), e.g. the listener's URL. */
  describe(holder: string): void;
  release(): Promise<void>;
}

export type LockResult = { ok: true; lock: InboxLock } | { ok: false; holder: string };

export function lockAddress(inboxPath: string, os = platform()): string {
  const hash = createHash('sha256').update(resolve(inboxPath)).digest('hex').slice(0, 20);
  return os === 'win32' ? `\\\\.\\pipe\\vouchers-inbox-${hash}` : join(tmpdir(), `vouchers-inbox-${hash}.sock`);
}

function listenOn(server: Server, address: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((done) => {
    const onError = (e: NodeJS.ErrnoException) => done(e);
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      done(undefined);
    });
  });
}

/** What the holder says, or undefined when nobody answers (a stale socket file). */
function probe(address: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((done) => {
    let text = '';
    let answered = false;
    const socket = createConnection(address);
    const timer = setTimeout(() => {
      socket.destroy();
      done(text || 'another process');
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      answered = true;
    });
    socket.on('data', (c: string) => {
      text += c;
    });
    socket.on('end', () => {
      clearTimeout(timer);
      socket.destroy();
      done(text.trim() || 'another process');
    });
    socket.on('error', () => {
      clearTimeout(timer);
      done(answered ? text.trim() || 'another process' : undefined);
    });
  });
}

/**
 * Take the inbox's lock. Where no local socket can be made at all (an unusual temp
 * folder), it goes ahead without one rather than refusing to listen.
 */
export async function lockInbox(inboxPath: string, options: { address?: string; probeTimeoutMs?: number } = {}): Promise<LockResult> {
  const address = options.address ?? lockAddress(inboxPath);
  let holder = 'a vouchers listen that is starting';
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`${holder}\n`);
    });
    const error = await listenOn(server, address);
    if (!error) {
      server.unref();
      let released: Promise<void> | undefined;
      return {
        ok: true,
        lock: {
          describe(next) {
            holder = next;
          },
          release() {
            released ??= new Promise<void>((done) => server.close(() => done()));
            return released;
          },
        },
      };
    }
    if (error.code !== 'EADDRINUSE') return { ok: true, lock: { describe() {}, release: () => Promise.resolve() } };
    const other = await probe(address, options.probeTimeoutMs ?? 1_000);
    if (other !== undefined) return { ok: false, holder: other };
    await unlink(address).catch(() => undefined); // left by a listener that was killed
  }
  return { ok: false, holder: 'another process' };
}
