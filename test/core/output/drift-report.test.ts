import { describe, expect, it } from 'vitest';
import { DRIFT_WARNINGS, driftReporter } from '../../../src/core/output/drift-report.js';
import type { ContractDrift } from '../../../src/core/http/validate.js';
import { testIO } from '../../helpers/io.js';

const drift = (where: string, route: string, issues: string[], traceId = 't1'): ContractDrift => ({
  where,
  route,
  status: 200,
  traceId,
  kind: 'shape',
  issues,
  fields: issues.map((i) => i.split(':')[0]!),
  message: `${where} answered in a shape that differs: ${issues.join('; ')} [trace ID ${traceId}]`,
});

function warnings(json = false, debug = false) {
  const io = testIO();
  const report = driftReporter({ io, globals: { json, debug } });
  return { report, lines: () => io.stderrText().split('\n').filter(Boolean) };
}

describe('driftReporter', () => {
  it('tells each endpoint and way of differing once: another endpoint, or another difference of the same one, is told too', async () => {
    const { report, lines } = warnings();
    report(drift('GET /products/p1 (getProduct)', 'getProduct', ['countries: missing']));
    // The same difference of another product, and of the same endpoint with other values or counts: not again.
    report(drift('GET /products/p2 (getProduct)', 'getProduct', ['countries: missing'], 't2'));
    report(drift('POST /orders (createOrder)', 'createOrder', ['status: "FAILED", read as final', 'items: missing']));
    report(drift('POST /orders (createOrder)', 'createOrder', ['status: "CANCELLED", read as final', 'items: missing'], 't3'));
    // An empty answer to the same endpoint is another difference.
    report(drift('POST /orders (createOrder)', 'createOrder', ['an empty body'], 't4'));
    await new Promise((r) => setImmediate(r));
    expect(lines()).toHaveLength(3);
    expect(lines()[0]).toMatch(/^Warning: GET \/products\/p1 \(getProduct\)/);
    expect(lines()[1]).toMatch(/^Warning: POST \/orders \(createOrder\).*FAILED/);
    expect(lines()[2]).toMatch(/^Warning: POST \/orders \(createOrder\).*an empty body.*t4/);
  });

  it(`past ${DRIFT_WARNINGS} differences, says once that more differ; --debug tells each`, async () => {
    const many = Array.from({ length: DRIFT_WARNINGS + 3 }, (_, n) => drift(`GET /x${n}`, `x${n}`, [`f${n}: missing`]));
    const plain = warnings(true);
    for (const d of many) plain.report(d);
    const debug = warnings(false, true);
    for (const d of [...many, ...many]) debug.report(d);
    await new Promise((r) => setImmediate(r));
    const told = plain.lines().map((l) => JSON.parse(l) as { warning: { code: string; endpoint: string } });
    expect(told).toHaveLength(DRIFT_WARNINGS + 1);
    expect(told.at(-1)!.warning).toMatchObject({ code: 'CONTRACT_DRIFT_MORE', endpoint: `GET /x${DRIFT_WARNINGS}` });
    expect(debug.lines()).toHaveLength(2 * many.length);
  });
});
