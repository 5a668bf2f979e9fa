/** How a bulk run's summary counts its rows: "the row", "both rows", "1 of 3 rows was", never "1 of 1 rows". */
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/commands/orders/bulk-noted.js';

describe('rowsOf', () => {
  it('says a count of the batch rows as words, with the verb that agrees', () => {
    expect(rowsOf(1, 1, ['is', 'are'])).toBe('the row is');
    expect(rowsOf(2, 2, ['was', 'were'])).toBe('both rows were');
    expect(rowsOf(5, 5)).toBe('all 5 rows');
    expect(rowsOf(1, 3, ['was', 'were'])).toBe('1 of 3 rows was');
    expect(rowsOf(2, 3, ['was', 'were'])).toBe('2 of 3 rows were');
    expect(rowsOf(0, 3, ['is', 'are'])).toBe('none of the 3 rows are');
    expect(rowsOf(0, 1, ['is', 'are'])).toBe('no row is');
  });
});
