/**
 * What `vouchers listen` prints: one line per event (time, type, event id, order id,
 * status, and the first forward result when it comes within a moment), later forward
 * results on their own lines, rejections on stderr; or NDJSON with `--json`, one
 * object per line with a `kind` of `event`, `duplicate`, `forward` or `rejected`.
 *
 * An event whose type this version does not know, or that differs from the contract, is
 * marked on its line (`unknown_event_type`, `drift` with --json) and explained by a warning
 * on stderr naming its id and the fields: it was accepted and stored as received. So is a
 * delivery of a stored event id with another body (`body_differs_from_first`): stored too.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { ForwardRecord } from '../core/journal/forward-log.js';
import { bodyNumberOf, differsFromFirst, driftOf, isUnknownType, type InboxEntry } from '../core/journal/inbox.js';
import { batchedOutput } from '../core/io/batched-output.js';
import type { IO } from '../core/io/io.js';
import { styleStatus } from '../core/output/format.js';
import { describeForward } from './forward.js';
import { displayText, escapeText } from '../core/output/printable.js';
import { jsonLine } from '../core/output/json-text.js';
import { suggestedCommand } from '../core/output/next-page.js';
import { codeFieldsIn, redactCodes } from './redact.js';
import type { ListenerActivity } from './server.js';

export interface DisplayOptions {
  json: boolean;
  /**
   * Forwarding is on: on a terminal the event line waits this long for the first forward
   * result so both fit on one line (later attempts get their own lines).
   */
  forwardWaitMs?: number;
  /** Colour on stdout (TTY only). */
  color: boolean;
  /** Colour on stderr (TTY only). */
  colorErr: boolean;
  /** The command that shows a stored event (`vouchers events show <id>`, with the listener's --inbox and root options). */
  showCommand?: (eventId: string) => string;
}

export interface Display {
  activity(a: ListenerActivity): void;
  forward(record: ForwardRecord): void;
  /** Write the lines queued for this turn of the event loop now (before a message of one's own). */
  writeQueued(): void;
  /** Print event lines still waiting for a forward result, and write all queued output. */
  flush(): void;
}

function clock(iso: string): string {
  return iso.slice(11, 19);
}

/**
 * A payload string fit for a terminal line: printable ASCII without spaces, or nothing
 * (the payload of an event type this version does not know is unchecked).
 */
function str(v: unknown): string {
  return typeof v === 'string' && /^[\x21-\x7e]{1,100}$/.test(v) ? v : '';
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

/** The marker of an event whose type this version does not know. */
export const UNKNOWN_TYPE_MARK = '(unknown event type)';
/** The marker of an event that differs from the contract. */
export const DRIFT_MARK = '(differs from contract)';
/** The marker of a delivery of a stored event id with another body: which body it is (what `--body` takes). */
export function otherBodyMark(bodyNumber: number): string {
  return `(another body than the first: body ${bodyNumber})`;
}

/** Differences named in a warning line; the rest are counted (all are in `events show`). */
const DRIFT_SHOWN = 5;

function eventLine(c: ChalkInstance, entry: Pick<InboxEntry, 'received_at' | 'envelope' | 'meta'>): string {
  const data = entry.envelope.data ?? {};
  const status = str(data.status);
  const extra = entry.envelope.event === 'voucher.issued' ? str(data.voucher_id) : '';
  return [
    c.dim(clock(entry.received_at)),
    c.bold(displayText(entry.envelope.event).padEnd(25)),
    displayText(entry.envelope.event_id),
    str(data.order_id) || '-',
    status ? styleStatus(status, c) : extra,
    isUnknownType(entry) ? c.yellow(UNKNOWN_TYPE_MARK) : '',
    driftOf(entry).length > 0 ? c.yellow(DRIFT_MARK) : '',
    differsFromFirst(entry) ? c.yellow(otherBodyMark(bodyNumberOf(entry))) : '',
  ]
    .filter((part, i) => i < 4 || part !== '')
    .join('  ')
    .trimEnd();
}

function defaultShowCommand(eventId: string): string {
  return suggestedCommand(undefined, ['events', 'show', eventId]);
}

/**
 * The warning for a marked event: its id and type, what differs, and that it was accepted
 * and stored as received. Undefined for an event that matches the contract.
 */
export function markWarning(
  entry: Pick<InboxEntry, 'envelope' | 'meta'>,
  forwarding: boolean,
  showCommand: (eventId: string) => string = defaultShowCommand,
): string | undefined {
  const unknown = isUnknownType(entry);
  const drift = driftOf(entry);
  if (!unknown && drift.length === 0) return undefined;
  const what: string[] = [];
  if (unknown) what.push('is of a type this version of vouchers does not know (a newer API?), so its payload was not checked');
  if (drift.length > 0) {
    const named = drift.slice(0, DRIFT_SHOWN).map(displayText).join('; ');
    const more = drift.length > DRIFT_SHOWN ? `; and ${drift.length - DRIFT_SHOWN} more` : '';
    what.push(`differs from the contract: ${named}${more}`);
  }
  const id = displayText(entry.envelope.event_id);
  return (
    `${id} (${displayText(entry.envelope.event)}) ${what.join(', and ')}. ` +
    `It was accepted and stored as received${forwarding ? ', and is forwarded unchanged' : ''}; details: ${showCommand(entry.envelope.event_id)}`
  );
}

export function createDisplay(io: IO, options: DisplayOptions): Display {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const ce = new Chalk({ level: options.colorErr ? 1 : 0 });
  const showCommand = options.showCommand ?? defaultShowCommand;
  // A line per delivery: written once per turn of the event loop, not once per line.
  const output = batchedOutput();
  const stderr = (text: string) => {
    output.write(io.stderr, text);
  };
  /** A warning on stderr: a JSON notice under --json (as every note then is), else a line starting "Warning:". */
  const warn = (code: string, paint: (s: string) => string, text: string) => {
    if (options.json) stderr(JSON.stringify({ notice: { code, message: `Warning: ${text}` } }) + '\n');
    else stderr(`${paint('Warning:')} ${text}\n`);
  };
  const stdout = (line: string) => {
    output.write(io.stdout, line + '\n');
  };
  const ndjson = (obj: unknown) => {
    output.write(io.stdout, jsonLine(io, obj));
  };
  const forwardText = (record: ForwardRecord) => {
    const text = describeForward(record);
    return record.outcome === 'delivered' ? c.green(text) : record.outcome === 'retrying' ? c.yellow(text) : c.red(text);
  };
  /** Event lines waiting for their first forward result, by event id. */
  const waiting = new Map<string, { line: string; timer: NodeJS.Timeout }>();
  /** Refusal messages already printed in full (at most 100 remembered). */
  const explained = new Set<string>();
  // One warning per event type and way of differing: later events like it are marked on their line only.
  const warned = new Set<string>();
  const warnMarked = (entry: InboxEntry) => {
    const warning = markWarning(entry, options.forwardWaitMs !== undefined, options.showCommand);
    if (!warning) return;
    const key = `${entry.envelope.event}\u0000${isUnknownType(entry)}\u0000${driftOf(entry)
      .map((d) => d.split(':')[0])
      .join('\u0000')}`;
    if (warned.has(key)) return;
    warned.add(key);
    warn(
      'EVENT_DIFFERS',
      ce.yellow,
      `${warning} (later ${displayText(entry.envelope.event)} events that differ the same way are only marked)`,
    );
  };
  const release = (eventId: string, suffix: string) => {
    const w = waiting.get(eventId);
    if (!w) return false;
    clearTimeout(w.timer);
    waiting.delete(eventId);
    stdout(`${w.line}  ${suffix}`);
    return true;
  };
  const hold = (entry: InboxEntry, ms: number) => {
    const id = entry.envelope.event_id;
    const timer = setTimeout(() => release(id, c.dim('→ forwarding…')), ms);
    timer.unref();
    waiting.set(id, { line: eventLine(c, entry), timer });
  };

  return {
    activity(a) {
      switch (a.kind) {
        case 'event': {
          warnMarked(a.entry);
          if (differsFromFirst(a.entry)) {
            const id = a.entry.envelope.event_id;
            const n = bodyNumberOf(a.entry);
            warn(
              'OTHER_BODY',
              ce.yellow,
              `${displayText(id)} was delivered before with another body: the sender reused the event id for other content, ` +
                `or changed the event between deliveries. This delivery is stored too (body ${n}), nothing is dropped; ${showCommand(id)} --body ${n} shows it`,
            );
          }
          // The redacted copy is printed with --json only; a line shows no payload field that could hold a code.
          const envelope = options.json ? redactCodes(a.entry.envelope) : undefined;
          const found = envelope?.found ?? codeFieldsIn(a.entry.envelope);
          if (found.length > 0) {
            warn(
              'CODE_IN_PAYLOAD',
              ce.red,
              `${displayText(a.entry.envelope.event_id)} carries voucher code fields (${found.map(displayText).join(', ')}), ` +
                'which webhook payloads must never do: they are not shown. Report it to the API provider.',
            );
          }
          if (envelope) {
            return ndjson({
              kind: 'event',
              ...eventSummary(a.entry),
              unknown_event_type: isUnknownType(a.entry),
              // The name events list --json gives it: one field name for scripts reading either.
              unknown_type: isUnknownType(a.entry),
              drift: driftOf(a.entry),
              body_differs_from_first: differsFromFirst(a.entry),
              body_number: bodyNumberOf(a.entry),
              envelope: envelope.value,
            });
          }
          if (options.forwardWaitMs === undefined) return stdout(eventLine(c, a.entry));
          return hold(a.entry, options.forwardWaitMs);
        }
        case 'duplicate':
          if (options.json) return ndjson({ kind: 'duplicate', ...eventSummary(a) });
          return stdout(
            c.dim(
              `${clock(a.received_at)}  duplicate of ${displayText(a.envelope.event_id)} (${displayText(a.envelope.event)}): already stored, not forwarded again`,
            ),
          );
        case 'rejected': {
          const r = a.rejection;
          if (options.json) {
            return ndjson({
              kind: 'rejected',
              time: a.time,
              method: a.method,
              path: a.path,
              remote_address: a.remote_address,
              webhook_id: a.webhook_id,
              status: r.status,
              code: r.code,
              message: r.message,
            });
          }
          // A sender retries what was refused: the explanation is given once, then each refusal is one line.
          const said = explained.has(r.message);
          if (!said && explained.size < 100) explained.add(r.message);
          stderr(
            `${ce.dim(clock(a.time))}  ${ce.red(`rejected ${r.status} ${r.code}`)}  ${escapeText(a.method)} ${escapeText(a.path)}` +
              `${a.webhook_id ? ` (${displayText(a.webhook_id)})` : ''}: ${said ? 'as explained above' : escapeText(r.message)}\n`,
          );
          return;
        }
      }
    },
    forward(record) {
      if (options.json) return ndjson({ kind: 'forward', ...record });
      if (release(record.event_id, forwardText(record))) return;
      stdout(`${c.dim(clock(record.time))}  ${forwardText(record)}  ${c.dim(record.event_id)}`);
    },
    writeQueued() {
      output.flush();
    },
    flush() {
      for (const id of [...waiting.keys()]) release(id, c.dim('→ forwarding stopped'));
      output.flush();
    },
  };
}
