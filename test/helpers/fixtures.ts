/**
 * vitest fixtures (test.extend): import `it` from here instead of from vitest, then ask a test
 * for what it needs by name:
 *
 *   it('lists wallets', async ({ sandbox }) => { … });      // one sandbox for the whole file
 *   it('kills a run', async ({ freshSandbox }) => { … });   // a sandbox of its own
 *   it('lists', async ({ sandboxEnv }) => runCli([…], { env: sandboxEnv }));  // env for the file's sandbox
 *
 * `sandbox` is started for the first test of the file that asks for it and closed after the
 * file's last test: for tests that only add orders of their own. A test that needs a state
 * nobody else touched (balances, stock, a clean journal of requests) takes `freshSandbox`,
 * closed after that test. Both are fast sandboxes (./sandbox.ts).
 */
import { it as base } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { envOf, fastSandbox } from './sandbox.js';

async function started({ onCleanup }: { onCleanup: (fn: () => Promise<void>) => void }): Promise<SandboxHandle> {
  const sb = await fastSandbox();
  onCleanup(() => sb.close());
  return sb;
}

export const it = base
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('sandbox', { scope: 'file' }, async ({}, hooks) => started(hooks))
  // eslint-disable-next-line no-empty-pattern
  .extend('freshSandbox', async ({}, hooks) => started(hooks))
  /** The environment variables that point a CLI run at the file's sandbox. */
  .extend('sandboxEnv', { scope: 'file' }, async ({ sandbox }) => envOf(sandbox));
