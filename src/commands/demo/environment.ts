/**
 * The demo's own world: a sandbox in this process on a free loopback port, and a factory
 * whose profile lives in a temporary config directory (nothing is written to the user's
 * configuration; the user's VOUCHERS_* variables are ignored). `close()` stops everything
 * and removes the directory.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIG_FILE_NAME } from '../../core/config/location.js';
import { withEnv } from '../../core/io/io.js';
import { ENV } from '../../core/config/types.js';
import type { Factory } from '../../core/run/factory.js';
import { startSandbox, type SandboxHandle } from '../../sandbox/index.js';
import type { SandboxDialect } from '../../sandbox/options.js';

export const DEMO_PROFILE = 'demo';

export interface DemoEnvironment {
  sandbox: SandboxHandle;
  /** Factory of the temporary profile: its client signs with the sandbox's credentials. */
  factory: Factory;
  configDir: string;
  close(): Promise<void>;
}

/** The user's environment without the variables that would point the demo elsewhere. */
function isolatedEnv(env: Record<string, string | undefined>, configDir: string): Record<string, string | undefined> {
  const names = new Set<string>(Object.values(ENV));
  const kept = Object.fromEntries(Object.entries(env).filter(([k]) => !names.has(k)));
  return { ...kept, [ENV.configDir]: configDir };
}

export async function openDemoEnvironment(f: Factory, timeScale: number, dialect: SandboxDialect = 'decisions'): Promise<DemoEnvironment> {
  const configDir = await mkdtemp(join(tmpdir(), 'vouchers-demo-'));
  const closers: (() => Promise<unknown>)[] = [() => rm(configDir, { recursive: true, force: true })];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', timeScale, quiet: true, dialect });
    closers.push(() => sandbox.close());
    const color = f.globals().color;
    const factory = f.forEnvironment(withEnv(f.io, isolatedEnv(f.io.env, configDir)), () => ({ color }));
    closers.push(() => factory.dispose());
    // Written with plain fs, not the config store: conf's exit hook would re-raise Ctrl-C and
    // end the process before this directory and the sandbox are cleaned up.
    const file = {
      current: DEMO_PROFILE,
      profiles: {
        [DEMO_PROFILE]: {
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          admin_url: sandbox.adminUrl,
          admin_token: sandbox.adminToken,
          signing: { path: 'full' },
        },
      },
    };
    await writeFile(join(configDir, CONFIG_FILE_NAME), JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
    return { sandbox, factory, configDir, close };
  } catch (e) {
    await close();
    throw e;
  }
}
