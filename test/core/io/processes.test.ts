import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { hostName } from '../../../src/core/io/processes.js';

describe('hostName', () => {
  it('is the name os.hostname() gives (the locks compare it with names other versions wrote)', () => {
    expect(hostName()).toBe(hostname());
  });
});
