/**
 * What `vouchers listen` prints: one line per event (time, type, event id, order id,
 * status), forward results under it, rejections on stderr; or NDJSON with `--json`, one
 * object per line with a `kind` of `event`, `duplicate`, `forward` or `rejected`.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { ForwardRecord } from '../core/journal/forward-log.js';
import type { InboxEntry } from '../core/journal/inbox.js';
import type { IO } from '../core/io/io.js';
import { styleStatus } from '../core/output/format.js';
import { describeForward } from './forward.js';
import type { ListenerActivity } from './server.js';

export interface DisplayOptions {
  json: boolean;
  /** Colour on stdout (TTY only). */
  color: boolean;
  /** Colour on stderr (TTY only). */
  colorErr: boolean;
}

export interface Display {
  activity(a: ListenerActivity): void;
  forward(record: ForwardRecord): void;
}

function clock(iso: string): string {
  return iso.slice(11, 19);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The summary fields of a stored event. */
export function eventSummary(entry: Pick<InboxEntry, 'received_at' | 'envelope'>): Record<string, unknown> {
  const data = entry.envelope.data ?? {};
  return {
    received_at: entry.received_at,
    event: entry.envelope.event,
    event_id: entry.envelope.event_id,
    order_id: str(data.order_id) || null,
    status: str(data.status) || null,
  };
}

function eventLine(c: ChalkInstance, entry: Pick<InboxEntry, 'received_at' | 'envelope'>): string {
  const data = entry.envelope.data ?? {};
  const status = str(data.status);
  const extra = entry.envelope.event === 'voucher.issued' ? str(data.voucher_id) : '';
  return [
    c.dim(clock(entry.received_at)),
    c.bold(entry.envelope.event.padEnd(25)),
    entry.envelope.event_id,
    str(data.order_id) || '-',
    status ? styleStatus(status, c) : extra,
  ].join('  ').trimEnd();
}

export function createDisplay(io: IO, options: DisplayOptions): Display {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const ce = new Chalk({ level: options.colorErr ? 1 : 0 });
  const stdout = (line: string) => { io.stdout.write(line + '\n'); };
  const ndjson = (obj: unknown) => stdout(JSON.stringify(obj));

  return {
    activity(a) {
      switch (a.kind) {
        case 'event':
          if (options.json) return ndjson({ kind: 'event', ...eventSummary(a.entry), envelope: a.entry.envelope });
          return stdout(eventLine(c, a.entry));
        case 'duplicate':
          if (options.json) return ndjson({ kind: 'duplicate', ...eventSummary(a) });
          return stdout(c.dim(`${clock(a.received_at)}  duplicate of ${a.envelope.event_id} (${a.envelope.event}): already stored, not forwarded again`));
        case 'rejected': {
          const r = a.rejection;
          if (options.json) {
            return ndjson({ kind: 'rejected', time: a.time, method: a.method, path: a.path, remote_address: a.remote_address, status: r.status, code: r.code, message: r.message });
          }
          io.stderr.write(`${ce.dim(clock(a.time))}  ${ce.red(`rejected ${r.status} ${r.code}`)}  ${a.method} ${a.path}: ${r.message}\n`);
          return;
        }
      }
    },
    forward(record) {
      if (options.json) return ndjson({ kind: 'forward', ...record });
      const text = describeForward(record);
      const styled = record.outcome === 'delivered' ? c.green(text) : record.outcome === 'retrying' ? c.yellow(text) : c.red(text);
      stdout(`${c.dim(clock(record.time))}  ${styled}  ${c.dim(record.event_id)}`);
    },
  };
}
