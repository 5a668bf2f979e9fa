import { describe, expect, it } from 'vitest';
import { fitHelpText } from '../../../src/core/run/help-text.js';

describe('help text fitted to the terminal', () => {
  it('wraps a paragraph with a line too wide again at spaces, never in a word', () => {
    const text = [
      'The first profile becomes the current one. The API secret is asked for with a hidden',
      'prompt on a terminal; in scripts pipe it in with --api-secret-stdin.',
    ].join('\n');
    const lines = fitHelpText(text, 40).split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40);
    expect(lines.join(' ')).toBe(text.replace('\n', ' '));
    // A paragraph that fits keeps its lines.
    expect(fitHelpText(text, 100)).toBe(text);
  });

  it('keeps indentation, headings, aligned columns and example commands', () => {
    const text = [
      'Environment:',
      '  VOUCHERS_PROFILE, VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET,',
      '  VOUCHERS_CONFIG_DIR, NO_COLOR',
      '',
      '  --port <n>        TCP port to listen on, 0 picks a free one, default 4010',
      '  $ vouchers orders create --product sbx-instant --denomination 25 --quantity 2',
    ].join('\n');
    expect(fitHelpText(text, 50).split('\n')).toEqual([
      'Environment:',
      '  VOUCHERS_PROFILE, VOUCHERS_BASE_URL,',
      '  VOUCHERS_API_KEY, VOUCHERS_API_SECRET,',
      '  VOUCHERS_CONFIG_DIR, NO_COLOR',
      '',
      '  --port <n>        TCP port to listen on, 0 picks a free one, default 4010',
      '  $ vouchers orders create --product sbx-instant --denomination 25 --quantity 2',
    ]);
  });

  it('wraps the words beside an example in their column, or under the command when it is too narrow', () => {
    const line = '  $ vouchers sandbox start          foreground on :4010; Ctrl-C stops it';
    expect(fitHelpText(line, 60).split('\n')).toEqual([
      '  $ vouchers sandbox start          foreground on :4010;',
      '                                    Ctrl-C stops it',
    ]);
    expect(fitHelpText(line, 44).split('\n')).toEqual(['  $ vouchers sandbox start', '      foreground on :4010; Ctrl-C stops it']);
  });
});
