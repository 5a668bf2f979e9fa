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
    // Most tests wait on sockets, timers and child processes more than they compute: one and
    // a half workers per CPU (3 on 2 CPUs) ran the suite in 87 s where 2 took 119-131 s on
    // the same loaded machine; 4 was faster still (72 s) but leaves the CPU-bound files
    // (fuzz, certify) too little room for their per-answer time limits.
    maxWorkers: '150%',
    // Tests marked concurrent (the documented examples, mostly waiting on sandbox timers) run this many at once.
    maxConcurrency: 16,
    setupFiles: ['test/helpers/setup.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
