/**
 * The suite never leaves loopback: installed by test/helpers/setup.ts in every test
 * worker, this refuses any outbound connection to an address other than 127.0.0.0/8,
 * ::1 (and ::ffff:127.x) or the name `localhost`, and any DNS lookup of another name.
 *
 * How: `net.Socket.prototype.connect` is wrapped. Every TCP client of Node goes through
 * it (net.connect, tls.connect, http(s).request, http2, undici's connector, so the CLI's
 * transport and the sandbox's webhook deliveries, and the global fetch), and it is
 * checked BEFORE the name is resolved. A refused connection fails at once, as a real
 * refused connection does: the socket is destroyed on the next tick with an error naming
 * the host (code E_LOOPBACK_ONLY), and the attempt is recorded; setup.ts then fails the
 * test (afterEach) and the file (afterAll), so a caller that swallows connection errors
 * (a webhook retry loop) cannot hide it. `dns.lookup` and `dns.promises.lookup` throw the
 * same error for a name that is not `localhost` or a loopback address.
 *
 * Unix-socket and named-pipe connections (`path`) are local and allowed.
 *
 * Child processes (the tests that spawn bin/vouchers.js) are NOT covered: they are plain
 * Node processes with their own modules; their targets are set by the tests, on loopback.
 */
import dns from 'node:dns';
import { isIP, Socket } from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

export const GUARD_CODE = 'E_LOOPBACK_ONLY';

interface GuardState {
  installed: boolean;
  /** `host:port` of every connection refused and not yet taken. */
  blocked: string[];
}

// One state per process: with isolation each test file loads this module anew, but
// `net.Socket.prototype` and `dns` are shared by the whole worker process.
const KEY = Symbol.for('vouchers.test.loopback-guard');
const state: GuardState = ((globalThis as Record<symbol, unknown>)[KEY] as GuardState | undefined) ?? { installed: false, blocked: [] };
(globalThis as Record<symbol, unknown>)[KEY] = state;

/** True for `localhost`, 127.0.0.0/8, ::1 and ::ffff:127.x.x.x (brackets allowed). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === 'localhost.') return true;
  const family = isIP(h);
  if (family === 4) return h.startsWith('127.');
  if (family === 6) {
    if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h) || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
}

export class LoopbackOnlyError extends Error {
  readonly code = GUARD_CODE;
  constructor(readonly target: string) {
    super(`test guard: connection to ${target} refused; the test suite must stay on loopback (127.0.0.0/8, ::1, localhost)`);
    this.name = 'LoopbackOnlyError';
  }
}

/** The connections refused since the last call (and forget them). */
export function takeBlockedConnections(): string[] {
  return state.blocked.splice(0);
}

interface ConnectOptions {
  host?: unknown;
  port?: unknown;
  path?: unknown;
}

/** Where a `socket.connect(...)` call goes: undefined for a local (path) socket. */
function targetOf(args: unknown[]): { host: string; port: string } | undefined {
  // net.connect passes its normalized arguments as one array: [options, callback].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'string' && !/^\d+$/.test(first)) return undefined; // connect(path)
  if (typeof first === 'number' || typeof first === 'string') {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: String(first) };
  }
  const o = (first ?? {}) as ConnectOptions;
  if (o.path !== undefined && o.path !== null) return undefined;
  return { host: typeof o.host === 'string' && o.host !== '' ? o.host : 'localhost', port: String(o.port ?? '') };
}

export function installLoopbackGuard(): void {
  if (state.installed) return;
  state.installed = true;

  const connect = Socket.prototype.connect;
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]) {
    const target = targetOf(args);
    if (target && !isLoopbackHost(target.host)) {
      const where = target.port ? `${target.host}:${target.port}` : target.host;
      state.blocked.push(where);
      const error = new LoopbackOnlyError(where);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof Socket.prototype.connect;

  const refuseName = (hostname: unknown): LoopbackOnlyError | undefined => {
    if (typeof hostname !== 'string' || isLoopbackHost(hostname)) return undefined;
    state.blocked.push(`dns:${hostname}`);
    return new LoopbackOnlyError(`${hostname} (DNS lookup)`);
  };
  const lookup = dns.lookup;
  dns.lookup = function guardedLookup(hostname: unknown, ...rest: unknown[]) {
    const error = refuseName(hostname);
    if (error) {
      const callback = rest.at(-1);
      if (typeof callback === 'function') {
        process.nextTick(() => (callback as (e: Error) => void)(error));
        return;
      }
      throw error;
    }
    return (lookup as (...a: unknown[]) => unknown).call(dns, hostname, ...rest);
  } as typeof dns.lookup;
  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = async function guardedPromisesLookup(hostname: unknown, ...rest: unknown[]) {
    const error = refuseName(hostname);
    if (error) throw error;
    return (promisesLookup as (...a: unknown[]) => Promise<unknown>).call(dns.promises, hostname, ...rest);
  } as typeof dns.promises.lookup;
  syncBuiltinESMExports();
}
