/**
 * A bad quantity is refused before anything is sent, in one sentence that holds for every
 * case: "-1" was called "not a whole number", which it is.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

describe('orders create: a bad quantity', () => {
  it.each(['-1', '1.5', 'abc', ''])('--quantity %j: the flag, what it must be, exit 2, nothing sent', async (q) => {
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', `--quantity=${q}`], {
      configDir: tempConfigDir(),
      env: { NO_COLOR: '1' },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`Error: --quantity ${JSON.stringify(q)} must be a whole number of vouchers, 1 or more\n`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('in an --item, the same words', async () => {
    const item = await runCli(['orders', 'create', '--item', 'sbx-instant:10:-2'], { configDir: tempConfigDir(), env: { NO_COLOR: '1' } });
    expect(item.code, item.stderr).toBe(2);
    expect(item.stderr).toContain('quantity "-2" must be a whole number of vouchers, 1 or more');
  });
});
