/** Runs around every test file (vitest setupFiles): leave no temporary directories behind. */
import { afterAll } from 'vitest';
import { removeTempConfigDirs } from './run-cli.js';

afterAll(() => {
  removeTempConfigDirs();
});
