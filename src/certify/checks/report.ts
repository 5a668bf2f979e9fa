/**
 * The report's own checks, run last: every request of the run has the trace ID a partner
 * quotes to support, and the server's answers match the contract this CLI knows (a
 * difference is a warning naming the endpoint and its fields, never a failure).
 */
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { CheckDef } from '../types.js';

export const REPORT_CHECKS: CheckDef[] = [
  {
    id: 'report.trace-ids',
    title: "Every step's trace ID captured",
    proves:
      "Every request this run made has a trace ID (the server's X-Trace-ID, or the traceparent the client sent when no answer came), so each step can be quoted to support.",
    async run(ctx) {
      if (!ctx.requests) throw new CheckSkip("the runner keeps no record of the run's requests here");
      const all = ctx.requests();
      if (all.length === 0) throw new CheckSkip('no request was made before this check');
      const missing = all.filter((r) => typeof r.trace_id !== 'string' || r.trace_id.trim() === '');
      if (missing.length > 0) {
        const named = missing
          .slice(0, 5)
          .map((r) => `${r.method} ${r.path} (${r.status === null ? 'no answer' : `HTTP ${r.status}`}, attempt ${r.attempt})`);
        throw new CheckFailure(`${missing.length} of ${all.length} requests have no trace ID`, {
          expected: 'a trace ID for every request',
          actual: named.join('; ') + (missing.length > 5 ? `; and ${missing.length - 5} more` : ''),
        });
      }
      const answered = all.filter((r) => r.status !== null).length;
      return { message: `${all.length} request${all.length === 1 ? '' : 's'} (${answered} answered), each with its trace ID` };
    },
  },
  {
    id: 'report.contract',
    title: "The server's responses match the contract",
    proves:
      'Every 2xx answer of the run has the shape of the contract this CLI knows; a difference is reported as a warning naming the endpoint and its fields (the client reads it tolerantly).',
    required: false,
    async run(ctx) {
      if (!ctx.drifts) throw new CheckSkip("the client's differences from the contract are not collected here");
      const drifts = ctx.drifts();
      if (drifts.length === 0) {
        // With no 2xx answer (--only report, or every request refused), nothing was compared.
        const answered = ctx.requests?.().some((r) => r.status !== null && r.status >= 200 && r.status < 300);
        if (answered === false) throw new CheckSkip('no 2xx answer came before this check: nothing to compare with the contract');
        return { message: 'no answer differed from the contract' };
      }
      const byEndpoint = new Map<string, { fields: Set<string>; count: number; traceId: string | undefined; kinds: Set<string> }>();
      for (const d of drifts) {
        const entry = byEndpoint.get(d.where) ?? { fields: new Set<string>(), count: 0, traceId: d.traceId, kinds: new Set<string>() };
        for (const f of d.fields) entry.fields.add(f);
        entry.count += 1;
        entry.kinds.add(d.kind);
        byEndpoint.set(d.where, entry);
      }
      for (const [where, e] of byEndpoint) {
        const fields = [...e.fields];
        const only = e.kinds.size === 1 ? [...e.kinds][0] : undefined;
        const what =
          only === 'values' ? 'values this version does not know in' : only === 'names' ? 'statuses under other names in' : 'differs in';
        ctx.warn(
          `${where} ${what} ${fields.length > 0 ? fields.join(', ') : 'its body'} (${e.count} answer${e.count === 1 ? '' : 's'}${e.traceId ? `, trace ${e.traceId}` : ''})`,
        );
      }
      return {
        status: 'warn',
        message: `${byEndpoint.size} endpoint${byEndpoint.size === 1 ? '' : 's'} answered otherwise than the contract: ${[...byEndpoint.keys()].join(', ')}`,
      };
    },
  },
];
