/**
 * The local sandbox of the Partner API v1: `startSandbox(options)` serves /api/v1 and the
 * admin surface at /admin on a loopback port. See docs/sandbox.md.
 */
import { createServer, type Server } from 'node:http';
import { ConfigError } from '../core/errors/index.js';
import { createSandboxApp } from './app.js';
import { DEFAULT_HOST, DEFAULT_PORT, type SandboxHandle, type SandboxOptions } from './options.js';

export { createSandboxApp } from './app.js';
export type { SandboxApp, SandboxCredentials } from './app.js';
export type { SandboxDialect, SandboxHandle, SandboxLimits, SandboxOptions } from './options.js';
export { DEFAULT_HOST, DEFAULT_LIMITS, DEFAULT_PORT, SANDBOX_DIALECTS } from './options.js';
export { SANDBOX_PRODUCTS, SANDBOX_CATEGORY, SANDBOX_DENOMINATIONS, RESTRICTED_CATEGORY, DEFAULT_WALLETS } from './products.js';
export type { SandboxProductId } from './products.js';
export type { SandboxState } from './state/types.js';
export { FAULTS, SIMULATE_HEADER } from './api/faults.js';

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (e.code === 'EADDRINUSE')
        reject(
          new ConfigError(
            `Port ${port} on ${host} is already in use`,
            'Stop what runs there, or start the sandbox on another port (--port 0 picks a free one)',
          ),
        );
      else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
        reject(new ConfigError(`Cannot listen on ${host}: ${e.message}`, 'Use a local address such as 127.0.0.1'));
      else reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`Port ${port} is not a TCP port`, 'Pass a port from 0 to 65535 (0 picks a free one)');
  const app = createSandboxApp(options);
  const server = createServer(app.listener);
  server.on('clientError', app.clientError);
  server.on('connect', app.connect);
  server.keepAliveTimeout = 5_000;
  try {
    await listen(server, port, host);
  } catch (e) {
    await app.close();
    throw e;
  }
  app.start();
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const origin = `http://${urlHost}:${actualPort}`;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await app.close();
      await stopped;
    })());
  return {
    baseUrl: `${origin}/api/v1`,
    adminUrl: `${origin}/admin`,
    apiKey: app.credentials.apiKey,
    apiSecret: app.credentials.apiSecret,
    adminToken: app.credentials.adminToken,
    partnerId: app.credentials.partnerId,
    port: actualPort,
    host,
    dialect: app.dialect,
    close,
    get state() {
      return app.runtime().state;
    },
  };
}
