import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/contract/errors.js';
import { REJECTION_CODES } from '../../src/listener/reject.js';

describe('refusals of the listener and webhooks verify', () => {
  it('docs/contract.md lists every reason with its code and status, and no other', () => {
    const doc = readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Refusals of `vouchers listen` and `vouchers webhooks verify`'));
    const rows = [
      ...section.slice(0, section.indexOf('\n\n', section.indexOf('| reason |'))).matchAll(/^\| `(\w+)` \| `(\w+)` \| (\d+) \|/gm),
    ];
    expect(rows.map((r) => [r[1], r[2], Number(r[3])])).toEqual(
      Object.entries(REJECTION_CODES).map(([reason, code]) => [reason, code, ERRORS[code].status]),
    );
  });
});
