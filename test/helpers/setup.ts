/**
 * Runs around every test file (vitest setupFiles): a UTF-8 locale, leave no temporary
 * directories behind, and never leave loopback (./loopback-guard.ts): a connection to any other address is
 * refused at once and fails the test that made it.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { installLoopbackGuard, takeBlockedConnections } from './loopback-guard.js';
import { removeTempConfigDirs } from './run-cli.js';

installLoopbackGuard();

// The suite expects what a UTF-8 terminal shows: commands it spawns inherit this environment,
// and a runner's LANG=C or TERM=dumb would turn their ✔ and … into ASCII (tests of that set
// the variables themselves).
process.env.LANG = 'C.UTF-8';
delete process.env.LC_ALL;
delete process.env.LC_CTYPE;
if (process.env.TERM === 'dumb') delete process.env.TERM;

const noneBlocked = (when: string) => {
  const blocked = takeBlockedConnections();
  expect(blocked, `${when}: connections outside loopback were attempted (the test guard refused them)`).toEqual([]);
};

afterEach(() => noneBlocked('during this test'));

afterAll(() => {
  removeTempConfigDirs();
  noneBlocked('after the last test of this file');
});
