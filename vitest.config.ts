import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Test files share their worker's loaded modules instead of each loading the CLI, the
    // sandbox, zod and undici afresh: the suite runs in less than half the time. So a test
    // file must not replace a module (vi.mock): spy on the object instead (see
    // test/core/signer/hmac.test.ts), and put back what it changes in process state.
    isolate: false,
    setupFiles: ['test/helpers/setup.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
