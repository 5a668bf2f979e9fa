/**
 * One listener per inbox. Two listeners appending to the same file would each dedupe only
 * what they stored themselves (an event could be stored twice, and forwarded twice), and the
 * second one, on opening, would take the first one's line in progress for one torn by a crash.
 *
 * The lock names the file itself, not the path as typed: the real path of its folder
 * (symlinks resolved, fs.realpathSync) with the file's name, and the folder's device and
 * inode with the file's name (the same folder reached through a bind mount). A listener takes
 * a lock for each, so two names of one file meet in at least one of them. Each is a local
 * socket: on Linux in the abstract namespace (no file, no folder, the same whatever TMPDIR
 * says, and freed by the kernel when its process dies, even by SIGKILL); on Windows a named
 * pipe; elsewhere a Unix socket in /tmp (not $TMPDIR, which differs between shells and
 * users' sessions), where a socket file left behind refuses connections and is taken over.
 * A second listener that connects reads who holds the lock.
 */
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { platform } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export interface InboxLock {
  /** Say who holds the lock (shown to a second listener), e.g. the listener's URL. */
  describe(holder: string): void;
  release(): Promise<void>;
}

export type LockResult =
  | {
      ok: true;
      lock: InboxLock;
      /** Set when no lock could be made (why): the listener goes on without one. */
      unlocked?: string;
    }
  | { ok: false; holder: string };

/**
 * The real path of a file that may not exist yet: its nearest existing folder resolved
 * (symlinks followed), the rest appended. The file itself is resolved too when it is a
 * symlink to another file.
 */
function realPathOf(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // not there yet (or a dangling link): resolve the folder
  }
  const rest: string[] = [basename(absolute)];
  for (let dir = dirname(absolute); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return absolute;
      rest.unshift(basename(dir));
    }
  }
}

/** What names the inbox file: its real path, and its folder's device and inode with its name (when the folder exists). */
export function inboxIdentity(inboxPath: string): string[] {
  const real = realPathOf(inboxPath);
  const ids = [`path:${real}`];
  try {
    const dir = statSync(dirname(real));
    ids.push(`inode:${dir.dev}:${dir.ino}/${basename(real)}`);
  } catch {
    // the folder is made later, by the inbox writer
  }
  return ids;
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 24);

/** The lock's local socket addresses, one per identity of the inbox (see above). */
export function lockAddresses(inboxPath: string, os: NodeJS.Platform = platform(), socketDir = '/tmp'): string[] {
  return inboxIdentity(inboxPath).map((id) => {
    const hash = hashOf(id);
    if (os === 'linux' || os === 'android') return `\0vouchers-inbox-${hash}`;
    if (os === 'win32') return `\\\\.\\pipe\\vouchers-inbox-${hash}`;
    return join(socketDir, `vouchers-inbox-${hash}.sock`);
  });
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

type OneLock = { ok: true; server: Server } | { ok: false; holder: string } | { ok: 'unusable'; why: string };

/** Take one address: held by us, held by someone who answers, or not usable here. */
async function lockOne(address: string, holder: () => string, probeTimeoutMs: number): Promise<OneLock> {
  let why = 'its socket could not be made';
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end(`${holder()}\n`);
    });
    const error = await listenOn(server, address);
    if (!error) {
      server.unref();
      return { ok: true, server };
    }
    if (error.code !== 'EADDRINUSE') return { ok: 'unusable', why: `${error.code ?? error.message}` };
    const other = await probe(address, probeTimeoutMs);
    if (other !== undefined) return { ok: false, holder: other };
    // Nobody answers: a socket file left by a listener that was killed (none is left in
    // the abstract namespace, where the address is in use only while its holder lives).
    why = 'its address is taken and nobody answers on it';
    await unlink(address).catch(() => undefined);
  }
  return { ok: 'unusable', why };
}

/**
 * Take the inbox's lock. Where no local socket can be made (an unusual system), it goes
 * ahead without one, saying why (`unlocked`), rather than refusing to listen: only a lock
 * whose holder answers refuses.
 */
export async function lockInbox(inboxPath: string, options: { addresses?: string[]; probeTimeoutMs?: number } = {}): Promise<LockResult> {
  const addresses = options.addresses ?? lockAddresses(inboxPath);
  let holder = 'a vouchers listen that is starting';
  const servers: Server[] = [];
  const reasons: string[] = [];
  const closeAll = () => Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done())))).then(() => undefined);
  for (const address of addresses) {
    const one = await lockOne(address, () => holder, options.probeTimeoutMs ?? 1_000);
    if (one.ok === true) servers.push(one.server);
    else if (one.ok === false) {
      await closeAll();
      return { ok: false, holder: one.holder };
    } else reasons.push(one.why);
  }
  let released: Promise<void> | undefined;
  return {
    ok: true,
    lock: {
      describe(next) {
        holder = next;
      },
      release() {
        released ??= closeAll();
        return released;
      },
    },
    ...(servers.length === 0 ? { unlocked: reasons.join('; ') || 'no lock could be made' } : {}),
  };
}
