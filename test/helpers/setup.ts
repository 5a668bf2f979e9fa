/**
 * Runs around every test file (vitest setupFiles): leave no temporary directories behind,
 * and never leave loopback (./loopback-guard.ts): a connection to any other address is
 * refused at once and fails the test that made it.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { installLoopbackGuard, takeBlockedConnections } from './loopback-guard.js';
import { removeTempConfigDirs } from './run-cli.js';

installLoopbackGuard();

const noneBlocked = (when: string) => {
  const blocked = takeBlockedConnections();
  expect(blocked, `${when}: connections outside loopback were attempted (the test guard refused them)`).toEqual([]);
};

afterEach(() => noneBlocked('during this test'));

afterAll(() => {
  removeTempConfigDirs();
  noneBlocked('after the last test of this file');
});
