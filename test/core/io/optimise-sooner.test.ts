/** The bulk run's V8 tiering flag: set on V8 11 (Node 20) only, where it exists. */
import { describe, expect, it } from 'vitest';
import { optimiseSooner } from '../../../src/core/io/runtime.js';

describe('optimiseSooner', () => {
  it('leaves Node 22 and 24 (V8 12 and 13, no --interrupt-budget flag) as they are', () => {
    expect(optimiseSooner('12.4.254.21-node.33')).toBe(false);
    expect(optimiseSooner('13.6.233.10-node.28')).toBe(false);
  });

  // Only where the runtime is V8 11: another V8 would print "unrecognized flag" for it.
  it.runIf(process.versions.v8.startsWith('11.'))('sets the interrupt budget on V8 11 (Node 20), which accepts it', () => {
    expect(optimiseSooner()).toBe(true);
  });
});
