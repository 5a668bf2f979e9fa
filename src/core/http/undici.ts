/**
 * The keep-alive transport, loaded on demand. Only undici's Agent and its request API are
 * loaded (about a third of the package's start-up cost: the package entry also loads fetch,
 * websockets, caches and mocks this CLI never uses). This is what undici's own entry does
 * (`Object.assign(Dispatcher.prototype, api)`); when the layout ever changes, the package
 * entry is loaded instead.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';

export interface Transport {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

export interface TransportOptions {
  connectTimeoutMs: number;
  keepAliveTimeoutMs?: number;
}

type AgentConstructor = new (options: Record<string, unknown>) => Transport;

let agentClass: Promise<AgentConstructor> | undefined;

async function loadAgentClass(): Promise<AgentConstructor> {
  // undici parses HTTP with llhttp compiled to WebAssembly. By default V8 also compiles it
  // with its optimising tier in the background and, at exit, waits for that work: about
  // 70-100 ms added to every one-shot command. The baseline tier alone parses our small
  // responses just as well (measured in `npm run bench`).
  setFlagsFromString('--liftoff-only');
  // undici is CommonJS: `require` loads it without the ES-module lexer pass over each of
  // its files (import() would run one per file).
  const require = createRequire(import.meta.url);
  try {
    const Agent = require('undici/lib/dispatcher/agent.js') as AgentConstructor;
    // Only the request API (not stream, pipeline, upgrade, connect), installed on the
    // Dispatcher prototype as undici's own entry does for all five.
    const request = require('undici/lib/api/api-request.js') as unknown;
    const DispatcherClass = require('undici/lib/dispatcher/dispatcher.js') as { prototype: Record<string, unknown> };
    if (typeof request !== 'function' || typeof Agent !== 'function') throw new Error('unexpected undici layout');
    if (typeof DispatcherClass.prototype.request !== 'function') DispatcherClass.prototype.request = request;
    return Agent;
  } catch {
    return (require('undici') as { Agent: unknown }).Agent as AgentConstructor;
  }
}

/** A keep-alive agent shared by every request of one client. */
export async function createTransport(options: TransportOptions): Promise<Transport> {
  const Agent = await (agentClass ??= loadAgentClass());
  return new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    connect: { timeout: options.connectTimeoutMs },
  });
}
