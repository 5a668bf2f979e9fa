import { describe, expect, it } from 'vitest';
import { CHECKLIST } from '../../src/certify/checklist.js';
import { Recorder, runWarnings } from '../../src/certify/runner.js';
import type { CheckResult, RecordedRequest } from '../../src/certify/types.js';

const request = (status: number): RecordedRequest => ({
  ...{ method: 'POST', path: '/orders', status, trace_id: 't', attempt: 1, idempotency_key: null },
});
const result = (id: string, status: CheckResult['status'], requests: RecordedRequest[]): CheckResult => ({
  ...{ id, title: '', proves: '', status, required: true, duration_ms: 1, message: '' },
  ...{ trace_ids: [], requests, warnings: [] },
});
const base = { checks: CHECKLIST, webhooksExpected: false, eventsReceived: 0 };

function warningsOf(checks: [string, CheckResult['status'], number][]): string[] {
  const recorder = new Recorder();
  const results = checks.map(([id, status, code]) => {
    const r = request(code);
    recorder.record(r);
    return result(id, status, [r]);
  });
  return runWarnings(results, recorder, base);
}

describe('certify run warnings: the signing checks refused on purpose', () => {
  it('--only signing.tampered does not say the server refused the credentials', () => {
    const warnings = warningsOf([['signing.tampered', 'pass', 401]]);
    expect(warnings.join('\n')).not.toContain('refused these credentials');
    expect(warnings).toEqual([
      'every request sent was signed wrongly on purpose (and refused): nothing shows the server accepts these credentials; add access.credentials to --only',
    ]);
  });

  it('a signed write accepted next to them raises no warning', () => {
    expect(
      warningsOf([
        ['signing.write-accepted', 'pass', 201],
        ['signing.stale', 'pass', 401],
        ['signing.future', 'pass', 401],
      ]),
    ).toEqual([]);
  });

  it('credentials refused everywhere still say so', () => {
    const warnings = warningsOf([
      ['access.credentials', 'fail', 401],
      ['signing.tampered', 'skip', 401],
    ]);
    expect(warnings.join('\n')).toContain('the server refused these credentials');
  });
});
