import { describe, expect, it } from 'vitest';
import { notice } from '../../../src/core/output/notice.js';
import { testIO } from '../../helpers/io.js';

describe('notice', () => {
  it('a warning is a line starting "Warning: " for people, and a JSON notice without it', () => {
    const plain = testIO();
    notice(plain, { format: 'table' }, 'WEBHOOK_NOT_RESTORED', 'Warning: could not put the endpoint back\n');
    expect(plain.stderrText()).toBe('Warning: could not put the endpoint back\n');
    for (const format of ['json', 'ndjson'] as const) {
      const json = testIO();
      notice(json, { format }, 'WEBHOOK_NOT_RESTORED', 'Warning: could not put the endpoint back\n');
      expect(json.stderrText()).toBe(
        JSON.stringify({ notice: { code: 'WEBHOOK_NOT_RESTORED', message: 'could not put the endpoint back' } }) + '\n',
      );
    }
  });
});
