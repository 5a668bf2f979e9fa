/**
 * The keep-alive transport, loaded on demand. Only undici's Agent and its request API are
 * loaded (about a third of the package's start-up cost: the package entry also loads fetch,
 * websockets, caches and mocks this CLI never uses). This is what undici's own entry does
 * (`Object.assign(Dispatcher.prototype, api)`); a test fails if undici's layout changes. The
 * CLI bundle (scripts/bundle.mjs) bundles these files and loads undici's HTTP/2 client only
 * if it is ever used.
 */
import { setV8Flags } from '../io/v8-flags.js';
import type { Dispatcher } from 'undici';

export interface Transport {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
  /** Close at once, aborting requests still in flight. */
  destroy(): Promise<void>;
}

export interface TransportOptions {
  connectTimeoutMs: number;
  keepAliveTimeoutMs?: number;
  /** Time allowed for the response headers, and between two chunks of its body. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

type AgentConstructor = new (options: Record<string, unknown>) => Transport;
type Loaded = { default?: unknown } & Record<string, unknown>;
const exported = (m: Loaded): unknown => m.default ?? m;

let agentClass: Promise<AgentConstructor> | undefined;

async function loadAgentClass(): Promise<AgentConstructor> {
  const [agent, api, dispatcher] = await Promise.all([
    import('undici/lib/dispatcher/agent.js') as Promise<Loaded>,
    // Only the request API (not stream, pipeline, upgrade, connect), installed on the
    // Dispatcher prototype as undici's own entry does for all five.
    import('undici/lib/api/api-request.js') as Promise<Loaded>,
    import('undici/lib/dispatcher/dispatcher.js') as Promise<Loaded>,
  ]);
  const Agent = exported(agent);
  const request = exported(api);
  const DispatcherClass = exported(dispatcher) as { prototype?: Record<string, unknown> };
  if (typeof request !== 'function' || typeof Agent !== 'function' || !DispatcherClass.prototype) {
    throw new Error("undici's layout is not the one this version was built for: reinstall vouchers");
  }
  if (typeof DispatcherClass.prototype.request !== 'function') DispatcherClass.prototype.request = request;
  return Agent as AgentConstructor;
}

/**
 * The largest response head accepted: Node's `--max-http-header-size` (on the command line
 * or in NODE_OPTIONS), else its default of 16 KiB. undici would read it from node:http,
 * which it then loads for that alone (about 4 ms of a one-shot command; the CLI bundle makes
 * that read lazy, see scripts/bundle.mjs).
 */
export function maxHeaderSize(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): number {
  const args = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  let size = 16 * 1024;
  for (let i = 0; i < args.length; i++) {
    const m = /^--max-http-header-size(?:=(.*))?$/.exec(args[i]!);
    if (!m) continue;
    const value = Number(m[1] ?? args[i + 1]);
    if (Number.isInteger(value) && value > 0) size = value;
  }
  return size;
}

/**
 * Load undici without starting it. A batch does this before it sets its V8 flags, so that
 * the launcher's code cache, written just before flags change, holds undici too.
 */
export async function loadPool(): Promise<void> {
  await (agentClass ??= loadAgentClass());
}

/** A keep-alive agent shared by every request of one client. */
export async function createTransport(options: TransportOptions): Promise<Transport> {
  const Agent = await (agentClass ??= loadAgentClass());
  // undici parses HTTP with llhttp compiled to WebAssembly, on its first connection. By
  // default V8 also compiles it with its optimising tier in the background and, at exit,
  // waits for that work (70-100 ms once per process); the baseline tier alone parses our
  // small responses just as well (measured in `npm run bench`).
  setV8Flags('--liftoff-only');
  return new Agent({
    maxHeaderSize: maxHeaderSize(),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connect: { timeout: options.connectTimeoutMs },
    ...(options.headersTimeoutMs === undefined ? {} : { headersTimeout: options.headersTimeoutMs }),
    ...(options.bodyTimeoutMs === undefined ? {} : { bodyTimeout: options.bodyTimeoutMs }),
  });
}
