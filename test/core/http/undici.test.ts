/** The transport's own settings. */
import { describe, expect, it } from 'vitest';
import { maxHeaderSize } from '../../../src/core/http/undici.js';

describe('maxHeaderSize', () => {
  it("is Node's --max-http-header-size from the command line or NODE_OPTIONS, else 16 KiB", () => {
    expect(maxHeaderSize([], '')).toBe(16384);
    expect(maxHeaderSize(['--max-http-header-size=32768'], '')).toBe(32768);
    expect(maxHeaderSize([], '--trace-warnings --max-http-header-size 20000')).toBe(20000);
    expect(maxHeaderSize(['--max-http-header-size=nope'], '')).toBe(16384);
  });
});
