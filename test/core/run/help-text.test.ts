import { describe, expect, it } from 'vitest';
import { fitHelpText } from '../../../src/core/run/help-text.js';
import { shellWords } from '../../../src/core/io/shell-command.js';

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
      '  $ vouchers orders create --product sbx-instant \\',
      '      --denomination 25 --quantity 2',
    ]);
  });

  it('breaks an example command too wide between words, with a shell continuation, never in a quoted argument', () => {
    const line = `  $ vouchers webhooks verify --body body.json -H "webhook-id: msg_1" -H 'webhook-timestamp: 1732270000' --json`;
    const lines = fitHelpText(line, 50).split('\n');
    expect(lines).toEqual([
      '  $ vouchers webhooks verify --body body.json \\',
      '      -H "webhook-id: msg_1" \\',
      "      -H 'webhook-timestamp: 1732270000' --json",
    ]);
    // The lines joined as a shell joins them give the command's words back.
    const joined = lines.join('\n').replace(/ \\\n */g, ' ');
    expect(shellWords(joined.trim().slice(2))).toEqual(shellWords(line.trim().slice(2)));
    // An option stays with its value; one too wide for any line goes whole from the left edge, as in notes.
    expect(fitHelpText('  $ vouchers orders create --idempotency-key 6f1c2a3e-0000-4000-8000-000000000000 --yes', 30).split('\n')).toEqual([
      '  $ vouchers orders create \\',
      '--idempotency-key 6f1c2a3e-0000-4000-8000-000000000000 \\',
      '      --yes',
    ]);
    // A command already on several lines is broken again as one.
    const two =
      '  $ curl -X POST localhost:3000/webhooks -H "X-Sig: $(vouchers webhooks sign --body e.json)" \\\n      --data-binary @e.json';
    expect(fitHelpText(two, 60).split('\n')).toEqual([
      '  $ curl -X POST localhost:3000/webhooks \\',
      '      -H "X-Sig: $(vouchers webhooks sign --body e.json)" \\',
      '      --data-binary @e.json',
    ]);
    expect(fitHelpText(two, 200)).toBe(two);
  });

  it('keeps a comment a comment when it wraps, beside an example, under it, or on its own line', () => {
    const beside = '  $ vouchers webhooks verify --headers delivery.http   # the request line, headers, a blank line, the body';
    expect(fitHelpText(beside, 80).split('\n')).toEqual([
      '  $ vouchers webhooks verify --headers delivery.http   # the request line,',
      '                                                       # headers, a blank line,',
      '                                                       # the body',
    ]);
    expect(fitHelpText(beside, 60).split('\n')).toEqual([
      '  $ vouchers webhooks verify --headers delivery.http',
      '      # the request line, headers, a blank line, the body',
    ]);
    // Words beside a command that had to be broken go under it as a comment.
    expect(fitHelpText('  $ vouchers sandbox start --detach --profile pacing --time-scale 0.1   a second one', 50).split('\n')).toEqual([
      '  $ vouchers sandbox start --detach \\',
      '      --profile pacing --time-scale 0.1',
      '      # a second one',
    ]);
    expect(fitHelpText('  # orders placed this month, every page, as CSV for the books', 40).split('\n')).toEqual([
      '  # orders placed this month, every',
      '  # page, as CSV for the books',
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
