import { describe, expect, it } from 'vitest';
import { nextPageCommand, nextPageHint } from '../../../src/core/output/next-page.js';
import { shellQuote } from '../../../src/core/output/shell-quote.js';

describe('shellQuote', () => {
  it('leaves safe words bare and single-quotes the rest', () => {
    expect(shellQuote('ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE')).toBe('ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE');
    expect(shellQuote('eyJwIjoidHhu-_=')).toBe('eyJwIjoidHhu-_=');
    expect(shellQuote('created_at,type')).toBe('created_at,type');
    expect(shellQuote('my ref')).toBe("'my ref'");
    expect(shellQuote("o'brien")).toBe("'o'\\''brien'");
    expect(shellQuote('$HOME;rm')).toBe("'$HOME;rm'");
    expect(shellQuote('')).toBe("''");
  });
});

describe('nextPageCommand', () => {
  it('repeats every flag given, the root --profile/--base-url first, the cursor last', () => {
    expect(
      nextPageCommand({
        command: ['orders', 'list'],
        flags: [
          ['--status', 'PENDING'],
          ['--reference', 'batch 7'],
          ['--from', undefined],
          ['--limit', 20],
          ['--json', true],
          ['--all', false],
        ],
        globals: { profile: 'prod eu' },
        cursor: 'eyJ9',
      }),
    ).toBe("vouchers --profile 'prod eu' orders list --status PENDING --reference 'batch 7' --limit 20 --json --cursor eyJ9");
  });

  it('makes one line for stderr naming --all', () => {
    const hint = nextPageHint('transactions', { command: ['transactions', 'list'], flags: [['--type', 'TOP_UP']], cursor: 'abc' });
    expect(hint).toBe(
      'More transactions (or every page: --all instead of --cursor):\n  vouchers transactions list --type TOP_UP --cursor abc\n',
    );
  });

  it('with JSON output is one JSON notice carrying the cursor and the command', () => {
    const hint = nextPageHint(
      'transactions',
      {
        command: ['transactions', 'list'],
        flags: [
          ['--type', 'TOP_UP'],
          ['--json', true],
        ],
        cursor: 'a b',
      },
      true,
    );
    expect(hint.endsWith('\n')).toBe(true);
    expect(hint.trimEnd()).not.toContain('\n');
    expect(JSON.parse(hint)).toEqual({
      notice: {
        code: 'MORE_PAGES',
        message: 'More transactions (or every page: --all instead of --cursor)',
        next_cursor: 'a b',
        command: "vouchers transactions list --type TOP_UP --json --cursor 'a b'",
      },
    });
  });
});
