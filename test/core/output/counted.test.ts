import { describe, expect, it } from 'vitest';
import { counted } from '../../../src/core/output/counted.js';

describe('counted', () => {
  it('says one in the singular and every other count in the plural, irregular plurals as given', () => {
    expect(counted(1, 'order')).toBe('1 order');
    expect(counted(0, 'order')).toBe('0 orders');
    expect(counted(9, 'order')).toBe('9 orders');
    expect(counted(1, 'check was', 'checks were')).toBe('1 check was');
    expect(counted(3, 'check was', 'checks were')).toBe('3 checks were');
  });
});
